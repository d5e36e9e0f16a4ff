package dashboard_test

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
)

// variableForm is a variable's delete form: its action and name field.
var variableForm = regexp.MustCompile(`action="([^"]*/variables/[^"]*)"><input type="hidden" name="csrf" value="[^"]*"><input type="hidden" name="name" value="([^"]*)">`)

// TestVariablesPage_AStrangeNameCannotPointTheDeleteFormAtAnotherAction: a
// variable name made of a path (stored before names were checked, or set
// by a seller key with content:write before) is a form field of the
// delete form, never a part of its URL, so deleting it deletes it and
// rotates nothing; such a name can no longer be set.
func TestVariablesPage_AStrangeNameCannotPointTheDeleteFormAtAnotherAction(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	victim := e.newApp(t, "victim app")
	before, _ := e.svc.App(ctx, victim.ID)
	name := "../../" + victim.ID + "/rotate_secret?"
	k := e.key(t, e.app.ID, access.ScopeContentWrite)
	if code, body := e.call(t, k.Secret, http.MethodPut, "/apps/"+e.app.ID+"/variables/"+url.PathEscape(name), `{"value":"x"}`); code != http.StatusUnprocessableEntity {
		t.Fatalf("a seller key set the variable %q: %d %s", name, code, body)
	}
	if err := e.store.PutVariable(ctx, &access.Variable{AppID: e.app.ID, Name: name, Value: "x"}); err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.signIn()
	_, page := b.get("/admin/apps/" + e.app.ID + "/content")
	m := variableForm.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no delete form with a name field:\n%s", page)
	}
	base, _ := url.Parse(e.srv.URL + "/admin/apps/" + e.app.ID + "/content")
	ref, _ := url.Parse(html.UnescapeString(m[1]))
	target := base.ResolveReference(ref)
	if want := "/admin/apps/" + e.app.ID + "/variables/delete"; target.RequestURI() != want {
		t.Fatalf("the delete form posts to %s, want %s", target.RequestURI(), want)
	}
	if resp, body := b.post(target.RequestURI(), url.Values{"name": {html.UnescapeString(m[2])}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("delete: %d %s", resp.StatusCode, body)
	}
	if vs, _ := e.svc.Variables(ctx, e.app.ID); len(vs) != 0 {
		t.Fatalf("after the delete the application has %+v", vs)
	}
	if after, _ := e.svc.App(ctx, victim.ID); after.SecretHash != before.SecretHash {
		t.Fatal("deleting a variable rotated another application's secret")
	}
}

// TestDashboardAPI_ASessionCannotCallTheAdminEndpointOnlyRoutes: a session
// of the public site cannot export the store (every password hash), import
// into it, write a backup to a path it names, or manage administrators.
func TestDashboardAPI_ASessionCannotCallTheAdminEndpointOnlyRoutes(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signIn()
	dir := t.TempDir()
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/admin/api/export", ""},
		{"POST", "/admin/api/import", "{}"},
		{"POST", "/admin/api/backup", `{"path":"` + dir + `/copy.db"}`},
		{"GET", "/admin/api/admins", ""},
		{"POST", "/admin/api/admins", `{"username":"mallory","password":"a long and unusual pass 7"}`},
		{"POST", "/admin/api/admins/" + adminName + "/password", `{"password":"a long and unusual pass 8"}`},
	} {
		req, _ := http.NewRequest(tc.method, e.srv.URL+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("X-CSRF-Token", b.csrf)
		if status, body := do(t, b.c, req); status != http.StatusForbidden {
			t.Errorf("%s %s under a dashboard session: %d %.200s, want 403", tc.method, tc.path, status, body)
		}
	}
}

// TestSignIn_OverTLSTheSessionCookieIsSecureWithoutConfiguration: the same
// dashboard served over TLS (the shipped Caddyfile's HTTPS site) sets a
// Secure __Host- cookie without secure_cookies, which a browser never
// sends to the plain-HTTP listener of the same host; over plain HTTP the
// cookie is not Secure (it could not be set otherwise).
func TestSignIn_OverTLSTheSessionCookieIsSecureWithoutConfiguration(t *testing.T) {
	e := newEnv(t)
	tlsSrv := httptest.NewTLSServer(e.srv.Config.Handler)
	defer tlsSrv.Close()
	for _, tc := range []struct {
		name   string
		url    string
		client *http.Client
		secure bool
	}{
		{"over TLS", tlsSrv.URL, tlsSrv.Client(), true},
		{"over plain HTTP", e.srv.URL, http.DefaultClient, false},
	} {
		form := url.Values{"username": {adminName}, "password": {adminPassword}}
		req, _ := http.NewRequest(http.MethodPost, tc.url+"/admin/signin", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("Origin", tc.url)
		c := *tc.client
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		cookies := res.Cookies()
		if len(cookies) != 1 {
			t.Fatalf("%s: cookies %v", tc.name, cookies)
		}
		if k := cookies[0]; k.Secure != tc.secure || strings.HasPrefix(k.Name, "__Host-") != tc.secure {
			t.Errorf("%s: cookie %s Secure=%v, want Secure=%v with the __Host- prefix as well", tc.name, k.Name, k.Secure, tc.secure)
		}
	}
}
