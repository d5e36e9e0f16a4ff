package dashboard_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/appaccess/appaccess/accessapi/access"
)

func TestPages_EveryPageRendersUnderTheStrictPolicy(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u, err := e.svc.SignUp(ctx, &e.app.App, access.SignUpRequest{Username: "alice", Password: "a long and unusual pass 7"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SetVariable(ctx, e.app.ID, "motd", "hello"); err != nil {
		t.Fatal(err)
	}
	e.key(t, e.app.ID, access.ScopeUsersRead)
	b := e.browser(t)
	b.signIn()
	base := "/admin/apps/" + e.app.ID
	for _, path := range []string{"/admin/", base, base + "/licenses", base + "/licenses?filter=unused", base + "/users?prefix=al",
		base + "/users/" + u.ID, base + "/content", base + "/keys", base + "/audit", base + "/audit?action=user.banned&since=2026-01-01&until=2099-12-31"} {
		resp, body := b.get(path)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d\n%s", path, resp.StatusCode, body)
			continue
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "style-src 'nonce-") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		nonce := strings.TrimSuffix(strings.SplitN(strings.SplitN(csp, "'nonce-", 2)[1], "'", 2)[0], "'")
		if !strings.Contains(body, `<style nonce="`+nonce+`">`) {
			t.Errorf("%s: the style block does not carry the header's nonce", path)
		}
		if strings.Contains(body, "<script") {
			t.Errorf("%s: a page carries a script", path)
		}
		if strings.Contains(body, e.app.APISecret) {
			t.Errorf("%s: the application secret is rendered after its creation", path)
		}
	}
}

// TestAuditPage_ShowsWhoDidWhatFiltersAndPages: a ban made in the
// dashboard is on the audit page with the administrator's name and the
// reason; the action filter narrows the page, and a full page links to
// the next one with the filters kept.
func TestAuditPage_ShowsWhoDidWhatFiltersAndPages(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u, err := e.svc.SignUp(ctx, &e.app.App, access.SignUpRequest{Username: "mallory", Password: "a long and unusual pass 7"})
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.signIn()
	base := "/admin/apps/" + e.app.ID
	if resp, body := b.post(base+"/users/"+u.ID+"/ban", url.Values{"reason": {"chargeback 4411"}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("ban: %d %s", resp.StatusCode, body)
	}
	for i := range 55 {
		if _, err := e.svc.SetVariable(ctx, e.app.ID, "v", strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	_, body := b.get(base + "/audit?action=user.banned")
	for _, want := range []string{"user.banned", adminName, "chargeback 4411", u.ID} {
		if !strings.Contains(body, want) {
			t.Errorf("the filtered audit page lacks %q", want)
		}
	}
	if strings.Contains(body, "variable.set") || strings.Contains(body, `id="next"`) {
		t.Error("the action filter let other actions through, or links a next page")
	}
	_, body = b.get(base + "/audit?action=variable.set")
	if n := strings.Count(body, "<td>variable.set</td>"); n != 50 {
		t.Fatalf("first page shows %d entries, want 50", n)
	}
	i := strings.Index(body, `id="next" href="?`)
	if i < 0 {
		t.Fatal("a full page has no link to the next")
	}
	next := html.UnescapeString(strings.SplitN(body[i+len(`id="next" href="`):], `"`, 2)[0])
	if !strings.Contains(next, "action=variable.set") {
		t.Fatalf("the next link %q drops the filter", next)
	}
	_, body = b.get(base + "/audit" + next)
	if n := strings.Count(body, "<td>variable.set</td>"); n != 5 {
		t.Fatalf("second page shows %d entries, want 5", n)
	}
	if resp, _ := b.get(base + "/audit?since=yesterday"); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("a malformed date answered %d, want 422", resp.StatusCode)
	}
}

// TestHome_ChartsTodaysSignUpsAndActivations: a password sign-up and two
// code sign-ups today are today's bars, and the totals of the chart.
func TestHome_ChartsTodaysSignUpsAndActivations(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.svc.SignUp(ctx, &e.app.App, access.SignUpRequest{Username: "pat", Password: "a long and unusual pass 7"}); err != nil {
		t.Fatal(err)
	}
	codes, err := e.svc.CreateLicenses(ctx, e.app.ID, access.LicenseRequest{Count: 2, Grant: access.Grant{Minutes: ptr(int64(60))}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range codes {
		if _, err := e.svc.SignUpWithLicense(ctx, &e.app.App, c.Code, ""); err != nil {
			t.Fatal(err)
		}
	}
	b := e.browser(t)
	b.signIn()
	_, body := b.get("/admin/")
	today := time.Now().UTC().Format("2006-01-02")
	for _, want := range []string{"3 sign-ups", "2 activations", "<title>" + today + ": 3 sign-ups</title>", "<title>" + today + ": 2 activations</title>",
		`height="78"><title>` + today + `: 3 sign-ups`} {
		if !strings.Contains(body, want) {
			t.Errorf("the home page lacks %q", want)
		}
	}
	if n := strings.Count(body, "<rect "); n != 2*14 {
		t.Errorf("%d bars, want two for each of 14 days", n)
	}
}

func TestSignIn_SetsAHardenedCookieAndReplacesTheSession(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	form := url.Values{"username": {adminName}, "password": {adminPassword}}
	req, _ := http.NewRequest("POST", e.srv.URL+"/admin/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || len(cookies) != 1 {
		t.Fatalf("sign-in: %d, cookies %v", resp.StatusCode, cookies)
	}
	ck := cookies[0]
	if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure {
		t.Fatalf("cookie %+v: want HttpOnly, SameSite=Lax, not Secure by default", ck)
	}
	first := ck.Value
	if _, err := e.svc.AdminSessionOf(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	// Signing in again with that cookie replaces the session.
	b.c.Jar.SetCookies(mustURL(t, e.srv.URL+"/admin/"), []*http.Cookie{{Name: ck.Name, Value: first, Path: "/admin/"}})
	b.signIn()
	if _, err := e.svc.AdminSessionOf(context.Background(), first); access.CodeOf(err) != access.CodeAuthenticationRequired {
		t.Fatalf("the session from before sign-in still works: %v", err)
	}
}

func TestSignIn_WrongPasswordIsRefusedWithOneMessageAndThrottled(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	resp, body := b.post("/admin/signin", url.Values{"username": {adminName}, "password": {"wrong password!"}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "The username, password or code is wrong.") {
		t.Fatalf("wrong password: %d\n%s", resp.StatusCode, body)
	}
	for range 10 {
		resp, _ = b.post("/admin/signin", url.Values{"username": {adminName}, "password": {"wrong password!"}})
	}
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("repeated failures: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestPages_SignedOutVisitorIsSentToSignIn(t *testing.T) {
	e := newEnv(t)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(e.srv.URL + "/admin/apps/" + e.app.ID + "/users")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/admin/signin" {
		t.Fatalf("%d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSignIn_WithTOTPNeedsAFreshCode(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	en, err := e.svc.BeginTOTP(ctx, adminName)
	if err != nil {
		t.Fatal(err)
	}
	// Enrol with the previous step's code, so the current one is fresh.
	prev, _ := totp.GenerateCode(en.Secret, time.Now().Add(-30*time.Second))
	if err := e.svc.ConfirmTOTP(ctx, adminName, prev); err != nil {
		t.Fatal(err)
	}
	now, _ := totp.GenerateCode(en.Secret, time.Now())
	for _, tc := range []struct {
		name, code string
		want       int
	}{
		{"no code", "", http.StatusUnauthorized},
		{"the enrolment's code", prev, http.StatusUnauthorized},
		{"a fresh code", now, http.StatusOK},
		{"the same code again", now, http.StatusUnauthorized},
	} {
		b := e.browser(t)
		resp, body := b.post("/admin/signin", url.Values{"username": {adminName}, "password": {adminPassword}, "code": {tc.code}})
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d\n%s", tc.name, resp.StatusCode, tc.want, body)
		}
	}
}

func TestPages_SigningKeysAreListedRotatedAndRetired(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signIn()
	base := "/admin/apps/" + e.app.ID
	first, err := e.svc.SigningKeys(context.Background(), e.app.ID)
	if err != nil || len(first) != 1 {
		t.Fatalf("keys %v, %v", first, err)
	}
	if _, body := b.get(base); !strings.Contains(body, first[0].ID) || !strings.Contains(body, "Rotate the signing key") {
		t.Fatalf("the application page does not list the key:\n%s", body)
	}
	if resp, body := b.post(base+"/signing_keys", url.Values{"csrf": {"forged"}}); resp.StatusCode == http.StatusOK && !strings.Contains(body, "Signing keys") {
		t.Fatalf("a forged form: %d", resp.StatusCode)
	}
	if keys, _ := e.svc.SigningKeys(context.Background(), e.app.ID); len(keys) != 1 {
		t.Fatalf("a form without the page's CSRF token rotated the key: %d keys", len(keys))
	}
	b.get(base)
	resp, body := b.post(base+"/signing_keys", url.Values{})
	keys, _ := e.svc.SigningKeys(context.Background(), e.app.ID)
	if len(keys) != 2 || resp.StatusCode != http.StatusOK || !strings.Contains(body, keys[1].ID) ||
		!strings.Contains(body, "signing_keys/"+first[0].ID+"/retire") || strings.Contains(body, keys[1].ID+"/retire") {
		t.Fatalf("after rotating: %d keys, %d\n%s", len(keys), resp.StatusCode, body)
	}
	if resp, body := b.post(base+"/signing_keys/"+first[0].ID+"/retire", url.Values{}); resp.StatusCode != http.StatusOK || strings.Contains(body, first[0].ID) {
		t.Fatalf("after retiring: %d\n%s", resp.StatusCode, body)
	}
}
