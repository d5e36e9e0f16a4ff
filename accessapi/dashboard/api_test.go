package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
)

func problemCode(t *testing.T, body string) string {
	t.Helper()
	var p struct{ Code string }
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatalf("not a problem: %s", body)
	}
	return p.Code
}

func TestAPI_KeyWithOnlyLicensesCreateCreatesCodesAndNothingElse(t *testing.T) {
	e := newEnv(t)
	k := e.key(t, e.app.ID, access.ScopeLicensesCreate)
	status, body := e.call(t, k.Secret, "POST", "/apps/"+e.app.ID+"/licenses", `{"count": 3, "minutes": 60}`)
	if status != http.StatusCreated || strings.Count(body, `"code"`) != 3 {
		t.Fatalf("creating codes: %d %s", status, body)
	}
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/apps/" + e.app.ID + "/licenses", ""},
		{"POST", "/apps/" + e.app.ID + "/licenses/lookup", `{"code": "X"}`},
		{"GET", "/apps/" + e.app.ID + "/users", ""},
		{"GET", "/apps/" + e.app.ID + "/audit", ""},
		{"PUT", "/apps/" + e.app.ID + "/variables/v", `{"value": "1"}`},
		{"GET", "/apps/" + e.app.ID, ""},
		{"POST", "/apps/" + e.app.ID + "/rotate_secret", ""},
		{"POST", "/apps/" + e.app.ID + "/signing_keys", ""},
		{"GET", "/apps", ""},
		{"POST", "/apps/" + e.app.ID + "/keys", `{"name": "more", "scopes": ["users:write"]}`},
		{"POST", "/admins", `{"username": "eve", "password": "correct horse battery"}`},
		{"POST", "/admins/" + adminName + "/password", `{"password": "correct horse battery"}`},
	} {
		status, body := e.call(t, k.Secret, tc.method, tc.path, tc.body)
		if status != http.StatusForbidden || problemCode(t, body) != "forbidden" {
			t.Errorf("%s %s: %d %s, want 403 forbidden", tc.method, tc.path, status, body)
		}
	}
}

func TestAPI_KeyOfAppASeesNothingOfAppB(t *testing.T) {
	e := newEnv(t)
	b := e.newApp(t, "other")
	k := e.key(t, e.app.ID, access.SellerKeyScopes...)
	for _, path := range []string{"/licenses", "/users", "/variables", "/files", "/audit"} {
		if status, body := e.call(t, k.Secret, "GET", "/apps/"+b.ID+path, ""); status != http.StatusForbidden {
			t.Errorf("GET app B %s: %d %s, want 403", path, status, body)
		}
		if status, body := e.call(t, k.Secret, "GET", "/apps/"+e.app.ID+path, ""); status != http.StatusOK {
			t.Errorf("GET own app %s: %d %s, want 200", path, status, body)
		}
	}
	if status, _ := e.call(t, k.Secret, "POST", "/apps/"+b.ID+"/licenses", `{"count": 1, "minutes": 60}`); status != http.StatusForbidden {
		t.Errorf("creating codes of app B: %d, want 403", status)
	}
	// An application that does not exist is answered alike: nothing tells
	// them apart.
	_, bodyB := e.call(t, k.Secret, "GET", "/apps/"+b.ID+"/users", "")
	_, bodyNone := e.call(t, k.Secret, "GET", "/apps/no-such-app/users", "")
	if bodyB != bodyNone {
		t.Errorf("app B and a missing app answer differently:\n%s\n%s", bodyB, bodyNone)
	}
}

func TestAPI_KeyWithAuditReadReadsTheAuditLogAndNothingElse(t *testing.T) {
	e := newEnv(t)
	k := e.key(t, e.app.ID, access.ScopeAuditRead)
	status, body := e.call(t, k.Secret, "GET", "/apps/"+e.app.ID+"/audit?action=seller_key.created", "")
	if status != http.StatusOK || !strings.Contains(body, `"seller_key.created"`) {
		t.Fatalf("reading the audit log: %d %s, want 200 with the key's own creation", status, body)
	}
	for _, path := range []string{"/apps/" + e.app.ID + "/licenses", "/apps/" + e.app.ID + "/users", "/apps/" + e.app.ID + "/variables",
		"/audit"} { // the server's own log is the administrators'
		if status, body := e.call(t, k.Secret, "GET", path, ""); status != http.StatusForbidden {
			t.Errorf("GET %s with audit:read only: %d %s, want 403", path, status, body)
		}
	}
}

func TestAPI_RevokedKeyIsRefusedAtOnce(t *testing.T) {
	e := newEnv(t)
	k := e.key(t, e.app.ID, access.ScopeLicensesRead)
	path := "/apps/" + e.app.ID + "/licenses"
	if status, body := e.call(t, k.Secret, "GET", path, ""); status != http.StatusOK {
		t.Fatalf("before revoking: %d %s", status, body)
	}
	if err := e.svc.RevokeSellerKey(context.Background(), e.app.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	if status, body := e.call(t, k.Secret, "GET", path, ""); status != http.StatusUnauthorized || problemCode(t, body) != "authentication_required" {
		t.Fatalf("after revoking: %d %s, want 401", status, body)
	}
}

func TestAPI_MissingOrWrongCredentialIsRefusedAndGuessingIsThrottled(t *testing.T) {
	e := newEnv(t)
	path := "/apps/" + e.app.ID + "/licenses"
	if status, body := e.call(t, "", "GET", path, ""); status != http.StatusUnauthorized || problemCode(t, body) != "authentication_required" {
		t.Fatalf("no credential: %d %s", status, body)
	}
	var status int
	var body string
	for range access.DefaultThrottlePolicy.SecretFree + 5 {
		if status, body = e.call(t, "sk_guess", "GET", path, ""); status == http.StatusTooManyRequests {
			break
		}
	}
	if status != http.StatusTooManyRequests || problemCode(t, body) != "too_many_attempts" {
		t.Fatalf("guessing keys: %d %s, want 429", status, body)
	}
	req, _ := http.NewRequest("GET", e.srv.URL+"/admin/api"+path, nil)
	req.Header.Set("Authorization", "Bearer sk_guess")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("a throttled answer has no Retry-After")
	}
}

func TestAPI_SessionNeedsItsCSRFTokenForUnsafeRequests(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signIn()
	path := e.srv.URL + "/admin/api/apps/" + e.app.ID + "/licenses"
	if resp, body := b.get("/admin/api/apps/" + e.app.ID + "/licenses"); resp.StatusCode != http.StatusOK {
		t.Fatalf("a session reading: %d %s", resp.StatusCode, body)
	}
	for name, token := range map[string]string{"missing": "", "forged": "Zm9yZ2Vk", "right": b.csrf} {
		req, _ := http.NewRequest("POST", path, strings.NewReader(`{"count": 1, "minutes": 60}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if token != "" {
			req.Header.Set("X-CSRF-Token", token)
		}
		status, body := do(t, b.c, req)
		want := http.StatusForbidden
		if name == "right" {
			want = http.StatusCreated
		}
		if status != want {
			t.Errorf("%s CSRF token: %d %s, want %d", name, status, body, want)
		}
	}
}

func TestForms_MissingForgedOrCrossOriginAreRefused(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signIn()
	good := b.csrf
	for _, tc := range []struct {
		name   string
		csrf   string
		header func(*http.Request)
		want   int
	}{
		{"missing token", "", nil, http.StatusForbidden},
		{"forged token", "Zm9yZ2VkLXRva2Vu", nil, http.StatusForbidden},
		{"cross-site with the token", good, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, http.StatusForbidden},
		{"same-origin with the token", good, nil, http.StatusOK},
	} {
		form := url.Values{"name": {"renamed " + tc.name}, "csrf": {tc.csrf}}
		req, _ := http.NewRequest("POST", e.srv.URL+"/admin/apps", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if tc.header != nil {
			tc.header(req)
		}
		status, body := do(t, b.c, req)
		if tc.want == http.StatusOK {
			if status != http.StatusCreated {
				t.Errorf("%s: %d, want 201\n%s", tc.name, status, body)
			}
			continue
		}
		if status != tc.want {
			t.Errorf("%s: %d, want %d\n%s", tc.name, status, tc.want, body)
		}
	}
	apps, _ := e.svc.Apps(context.Background())
	if len(apps) != 2 {
		t.Fatalf("%d applications exist, want the first and the one legitimate form's", len(apps))
	}
}
