package dashboard_test

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/dashboard"
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
	h := e.hook(t, "https://shop.example/hooks", access.EventUserSignedUp)
	b := e.browser(t)
	b.signIn()
	base := "/admin/apps/" + e.app.ID
	for _, path := range []string{"/admin/", base, base + "/licenses", base + "/licenses?filter=unused", base + "/users?prefix=al",
		base + "/users/" + u.ID, base + "/content", base + "/keys", base + "/webhooks", base + "/webhooks/" + h.ID,
		base + "/audit", base + "/audit?action=user.banned&since=2026-01-01&until=2099-12-31", "/admin/audit", "/admin/audit?action=admin.signed_in"} {
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
		if strings.Contains(body, e.app.APISecret) || strings.Contains(body, h.Secret) {
			t.Errorf("%s: the application's or an endpoint's secret is rendered after its creation", path)
		}
		for _, button := range unconfirmedDangerButtons(body) {
			t.Errorf("%s: %s submits at the first click, with no confirmation step", path, button)
		}
	}
}

// dangerButton is a button of an action that cannot be undone.
var dangerButton = regexp.MustCompile(`<button[^>]*class="danger"[^>]*>[^<]*`)

// unconfirmedDangerButtons lists the danger buttons of body that are not
// inside a closed-by-default <details class="confirm">, except a ban
// (which asks for a reason and can be lifted) and a webhook secret
// rotation (which asks for the old secret's overlap).
func unconfirmedDangerButtons(body string) []string {
	var out []string
	for _, loc := range dangerButton.FindAllStringIndex(body, -1) {
		button := body[loc[0]:loc[1]]
		if strings.Contains(button, `id="ban"`) || strings.Contains(button, `id="rotate"`) {
			continue
		}
		before := body[:loc[0]]
		if strings.LastIndex(before, `<details class="confirm">`) <= strings.LastIndex(before, "</details>") {
			out = append(out, button)
		}
	}
	return out
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

// TestServerAuditPage_ShowsDashboardSignInsAndSignOuts: the server's own
// audit log, linked from the home page, has each sign-in and sign-out with
// the administrator's name, and none of an application's entries.
func TestServerAuditPage_ShowsDashboardSignInsAndSignOuts(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signIn()
	if resp, body := b.post("/admin/signout", url.Values{}); resp.StatusCode >= 400 {
		t.Fatalf("sign out: %d %s", resp.StatusCode, body)
	}
	b.signIn()
	_, home := b.get("/admin/")
	if !strings.Contains(home, `href="/admin/audit"`) {
		t.Error("the home page does not link the server's audit log")
	}
	_, body := b.get("/admin/audit")
	for action, n := range map[string]int{"admin.signed_in": 2, "admin.signed_out": 1, "app.created": 0} {
		if got := strings.Count(body, "<td>"+action+"</td>"); got != n {
			t.Errorf("%d %s rows, want %d", got, action, n)
		}
	}
	if !strings.Contains(body, "dashboard: "+adminName) {
		t.Errorf("the sign-out is not named after %s", adminName)
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

// newSecret is the secret a page shows in its #new-secret block, or "".
func newSecret(body string) string {
	m := newSecretBlock.FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

var newSecretBlock = regexp.MustCompile(`id="new-secret">([^<]*)<`)

// rowOf is the table row of body that holds s, or "".
func rowOf(body, s string) string {
	for _, row := range strings.Split(body, "<tr>") {
		if strings.Contains(row, s) {
			return row
		}
	}
	return ""
}

// openedSecrets are the secrets an endpoint signs with now: the current
// one, then the previous one during an overlap.
func openedSecrets(t *testing.T, h *access.Webhook) []string {
	t.Helper()
	s, err := access.OpenWebhookSecrets(access.WebhookKey(nil), h, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wantDashboardAudit checks that the newest entry of action names the
// test administrator, through the dashboard, acting on target.
func wantDashboardAudit(t *testing.T, e *env, action, target string) {
	t.Helper()
	a := e.auditBy(t, action)
	if a.Principal.Kind != dashboard.PrincipalDashboard || a.Principal.Name != adminName || a.Target != target {
		t.Errorf("audit %s: by %s %q on %q, want the dashboard's %q on %q", action, a.Principal.Kind, a.Principal.Name, a.Target, adminName, target)
	}
}

func TestWebhooksPage_ListsEndpointsWithEventsStateAndSecretOverlap(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rotated := e.hook(t, "https://rotated.example/hooks", access.EventUserSignedUp)
	if _, err := e.svc.RotateWebhookSecret(ctx, e.app.ID, rotated.ID, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	off := e.hook(t, "https://off.example/hooks", access.EventUserBanned, access.EventLoggedIn)
	disabled := false
	if _, err := e.svc.UpdateWebhook(ctx, e.app.ID, off.ID, access.WebhookSettings{Enabled: &disabled}); err != nil {
		t.Fatal(err)
	}
	other := e.newApp(t, "other")
	otherURL := "https://other-app.example/hooks"
	if _, err := e.svc.CreateWebhook(ctx, other.ID, access.WebhookSettings{URL: &otherURL, Events: []access.EventKind{access.EventUserDeleted}}); err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.signIn()
	base := "/admin/apps/" + e.app.ID
	if _, body := b.get(base); !strings.Contains(body, `href="`+base+`/webhooks"`) {
		t.Fatal("the application's pages do not link to its webhooks")
	}
	resp, body := b.get(base + "/webhooks")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("webhooks page: %d\n%s", resp.StatusCode, body)
	}
	until := e.storedWebhook(t, rotated.ID).PreviousSecretUntil.UTC().Format("2006-01-02 15:04 UTC")
	for _, tc := range []struct {
		name, url string
		want      []string
	}{
		{"rotated within its overlap", rotated.URL, []string{"user.signed_up", "<td>enabled</td>", "signs until " + until, base + "/webhooks/" + rotated.ID}},
		{"disabled, never rotated", off.URL, []string{"user.banned", "session.created", "<td>disabled</td>", "<td>none</td>", base + "/webhooks/" + off.ID + "/delete"}},
	} {
		row := rowOf(body, tc.url)
		if row == "" {
			t.Errorf("%s: no row for %s", tc.name, tc.url)
			continue
		}
		for _, want := range tc.want {
			if !strings.Contains(row, want) {
				t.Errorf("%s: the row lacks %q:\n%s", tc.name, want, row)
			}
		}
	}
	if strings.Contains(body, otherURL) {
		t.Error("another application's endpoint is listed")
	}
	if strings.Contains(body, rotated.Secret) || strings.Contains(body, off.Secret) || strings.Contains(body, "whsec_") {
		t.Error("the list renders a secret")
	}
}

func TestWebhooksPage_CreatingShowsTheSecretOnceAndNeverAgain(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signIn()
	base := "/admin/apps/" + e.app.ID
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
	}{
		{"no event", url.Values{"url": {"https://shop.example/none"}, "enabled": {"on"}}, http.StatusUnprocessableEntity},
		{"not an http URL", url.Values{"url": {"ftp://shop.example/x"}, "event": {"user.banned"}}, http.StatusUnprocessableEntity},
		{"an unknown event", url.Values{"url": {"https://shop.example/x"}, "event": {"user.exploded"}}, http.StatusUnprocessableEntity},
		{"URL and events", url.Values{"url": {"https://shop.example/hooks"}, "event": {"user.signed_up", "user.banned"}, "enabled": {"on"}}, http.StatusCreated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b.get(base + "/webhooks")
			resp, body := b.post(base+"/webhooks", tc.form)
			hs, err := e.svc.Webhooks(context.Background(), e.app.ID)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("%d, want %d\n%s", resp.StatusCode, tc.status, body)
			}
			if tc.status != http.StatusCreated {
				if len(hs) != 0 || newSecret(body) != "" {
					t.Fatalf("a refused form made %d endpoints or shows a secret", len(hs))
				}
				return
			}
			if len(hs) != 1 || hs[0].URL != "https://shop.example/hooks" || len(hs[0].Events) != 2 || !hs[0].Enabled {
				t.Fatalf("stored endpoints %+v", hs)
			}
			secret := newSecret(body)
			if got := openedSecrets(t, &hs[0]); secret == "" || len(got) != 1 || got[0] != secret {
				t.Fatalf("the page shows %q, which is not the endpoint's secret", secret)
			}
			if strings.Contains(resp.Request.URL.String(), secret) {
				t.Fatal("the secret is in the page's URL")
			}
			wantDashboardAudit(t, e, string(access.EventWebhookCreated), hs[0].ID)
			for _, path := range []string{base + "/webhooks", base + "/webhooks/" + hs[0].ID, base + "/audit"} {
				if _, again := b.get(path); strings.Contains(again, secret) || strings.Contains(again, "new-secret") {
					t.Errorf("%s shows the secret again", path)
				}
			}
		})
	}
}

func TestWebhookPage_RotatingShowsTheNewSecretOnceAndKeepsTheOldOneForTheOverlap(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signIn()
	for _, tc := range []struct {
		name, overlap string
		status        int
		want          time.Duration // how long the old secret keeps signing
	}{
		{"an hour's overlap", "3600", http.StatusOK, time.Hour},
		{"no overlap", "0", http.StatusOK, 0},
		{"the default overlap", "", http.StatusOK, access.DefaultWebhookSecretOverlap},
		{"a negative overlap", "-1", http.StatusUnprocessableEntity, 0},
		{"more than a week", "604801", http.StatusUnprocessableEntity, 0},
		{"not a number", "soon", http.StatusUnprocessableEntity, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := e.hook(t, "https://shop.example/"+url.PathEscape(tc.name), access.EventUserBanned)
			path := "/admin/apps/" + e.app.ID + "/webhooks/" + h.ID
			b.get(path)
			before := time.Now()
			resp, body := b.post(path+"/rotate_secret", url.Values{"overlap_seconds": {tc.overlap}})
			after := time.Now()
			stored := e.storedWebhook(t, h.ID)
			secrets := openedSecrets(t, stored)
			if resp.StatusCode != tc.status {
				t.Fatalf("%d, want %d\n%s", resp.StatusCode, tc.status, body)
			}
			if tc.status != http.StatusOK {
				if len(secrets) != 1 || secrets[0] != h.Secret || newSecret(body) != "" {
					t.Fatal("a refused rotation changed the secret or shows one")
				}
				return
			}
			secret := newSecret(body)
			if secret == "" || secret == h.Secret || secrets[0] != secret {
				t.Fatalf("the page shows %q, not the endpoint's new secret", secret)
			}
			if tc.want == 0 {
				if len(secrets) != 1 || !strings.Contains(body, "No previous secret signs.") {
					t.Fatalf("without an overlap the old secret still signs (%d secrets)", len(secrets))
				}
			} else {
				until := stored.PreviousSecretUntil
				if len(secrets) != 2 || secrets[1] != h.Secret || until.Before(before.Add(tc.want).Truncate(time.Second)) || until.After(after.Add(tc.want)) {
					t.Fatalf("the old secret signs until %v (%d secrets), want %v after the rotation", until, len(secrets), tc.want)
				}
				if !strings.Contains(body, "signs too until "+until.UTC().Format("2006-01-02 15:04 UTC")) {
					t.Fatal("the page does not say until when the old secret signs")
				}
			}
			wantDashboardAudit(t, e, string(access.EventWebhookRotated), h.ID)
			if _, again := b.get(path); strings.Contains(again, secret) {
				t.Fatal("the endpoint's page shows the rotated secret again")
			}
		})
	}
}

func TestWebhookPage_SettingsChangeURLEventsAndEnabled(t *testing.T) {
	e := newEnv(t)
	h := e.hook(t, "https://shop.example/hooks", access.EventUserBanned)
	b := e.browser(t)
	b.signIn()
	path := "/admin/apps/" + e.app.ID + "/webhooks/" + h.ID
	for _, tc := range []struct {
		name    string
		form    url.Values
		status  int
		url     string
		events  []access.EventKind
		enabled bool
	}{
		{"a new URL and events", url.Values{"url": {"https://shop.example/v2"}, "event": {"session.created", "user.deleted"}, "enabled": {"on"}},
			http.StatusOK, "https://shop.example/v2", []access.EventKind{access.EventLoggedIn, access.EventUserDeleted}, true},
		{"unchecking enabled disables", url.Values{"url": {"https://shop.example/v2"}, "event": {"session.created"}},
			http.StatusOK, "https://shop.example/v2", []access.EventKind{access.EventLoggedIn}, false},
		{"checking it enables", url.Values{"url": {"https://shop.example/v2"}, "event": {"session.created"}, "enabled": {"on"}},
			http.StatusOK, "https://shop.example/v2", []access.EventKind{access.EventLoggedIn}, true},
		{"no event is refused", url.Values{"url": {"https://shop.example/v3"}, "enabled": {"on"}},
			http.StatusUnprocessableEntity, "https://shop.example/v2", []access.EventKind{access.EventLoggedIn}, true},
		{"a URL with a password is refused", url.Values{"url": {"https://u:p@shop.example/"}, "event": {"user.banned"}, "enabled": {"on"}},
			http.StatusUnprocessableEntity, "https://shop.example/v2", []access.EventKind{access.EventLoggedIn}, true},
	} {
		b.get(path)
		resp, body := b.post(path+"/settings", tc.form)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d\n%s", tc.name, resp.StatusCode, tc.status, body)
		}
		got := e.storedWebhook(t, h.ID)
		if got.URL != tc.url || !slices.Equal(got.Events, tc.events) || got.Enabled != tc.enabled {
			t.Errorf("%s: stored %s %v enabled=%v, want %s %v enabled=%v", tc.name, got.URL, got.Events, got.Enabled, tc.url, tc.events, tc.enabled)
		}
		if tc.status == http.StatusOK && (!strings.Contains(body, `value="`+tc.url+`"`) || strings.Contains(body, "whsec_")) {
			t.Errorf("%s: the page after saving does not show the URL, or shows a secret", tc.name)
		}
	}
	wantDashboardAudit(t, e, string(access.EventWebhookChanged), h.ID)
}

func TestWebhookPage_DeletingNeedsThePagesFormAndTheRightApplication(t *testing.T) {
	e := newEnv(t)
	h := e.hook(t, "https://shop.example/hooks", access.EventUserBanned)
	other := e.newApp(t, "other")
	b := e.browser(t)
	b.signIn()
	for _, tc := range []struct {
		name, app, csrf string
		status          int
		gone            bool
	}{
		{"a forged form", e.app.ID, "Zm9yZ2VkLXRva2Vu", http.StatusForbidden, false},
		{"through another application", other.ID, "", http.StatusNotFound, false},
		{"the page's form", e.app.ID, "", http.StatusOK, true},
	} {
		b.get("/admin/apps/" + e.app.ID + "/webhooks")
		form := url.Values{}
		if tc.csrf != "" {
			form.Set("csrf", tc.csrf)
		}
		resp, body := b.post("/admin/apps/"+tc.app+"/webhooks/"+h.ID+"/delete", form)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d\n%s", tc.name, resp.StatusCode, tc.status, body)
		}
		_, err := e.svc.Webhook(context.Background(), e.app.ID, h.ID)
		if gone := access.CodeOf(err) == access.CodeNotFound; gone != tc.gone {
			t.Fatalf("%s: endpoint gone %v, want %v (%v)", tc.name, gone, tc.gone, err)
		}
		if tc.gone && (strings.Contains(body, h.URL) || !strings.Contains(body, "No endpoint.")) {
			t.Errorf("%s: the list after deleting still shows the endpoint", tc.name)
		}
	}
	wantDashboardAudit(t, e, string(access.EventWebhookDeleted), h.ID)
}

func TestWebhookPage_DeliveryLogPagesNewestFirst(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	h := e.hook(t, "https://shop.example/hooks", access.EventLicensesCreated)
	for range 55 {
		if _, err := e.svc.CreateLicenses(ctx, e.app.ID, access.LicenseRequest{Count: 1, Grant: access.Grant{Minutes: ptr(int64(60))}}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := e.svc.Deliveries(ctx, e.app.ID, h.ID, "", access.MaxPageSize)
	if err != nil || len(all.Items) != 55 {
		t.Fatalf("%d deliveries, %v", len(all.Items), err)
	}
	b := e.browser(t)
	b.signIn()
	path := "/admin/apps/" + e.app.ID + "/webhooks/" + h.ID
	next := ""
	for _, tc := range []struct {
		name      string
		shown     []access.WebhookDelivery
		hasNext   bool
		hasNewest bool
	}{
		{"the first page", all.Items[:50], true, false},
		{"the second page", all.Items[50:], false, true},
	} {
		resp, body := b.get(path + next)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d\n%s", tc.name, resp.StatusCode, body)
		}
		if n := strings.Count(body, "<td>licenses.created</td>"); n != len(tc.shown) {
			t.Fatalf("%s shows %d deliveries, want %d", tc.name, n, len(tc.shown))
		}
		last := -1
		for _, d := range tc.shown {
			i := strings.Index(body, d.ID)
			if i < last {
				t.Fatalf("%s: delivery %s is not in newest-first order", tc.name, d.ID)
			}
			last = i
			if row := rowOf(body, d.ID); !strings.Contains(row, "<td>pending</td>") || !strings.Contains(row, "<td>0</td>") {
				t.Fatalf("%s: row of %s lacks its status and attempts:\n%s", tc.name, d.ID, row)
			}
		}
		if strings.Contains(body, `id="newest"`) != tc.hasNewest {
			t.Errorf("%s: link to the newest page shown = %v", tc.name, !tc.hasNewest)
		}
		i := strings.Index(body, `id="next" href="`)
		if (i >= 0) != tc.hasNext {
			t.Fatalf("%s: next link shown = %v", tc.name, i >= 0)
		}
		if i >= 0 {
			next = html.UnescapeString(strings.SplitN(body[i+len(`id="next" href="`):], `"`, 2)[0])
		}
	}
	if resp, _ := b.get(path + "?after=not-a-cursor"); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("a malformed cursor answered %d, want 422", resp.StatusCode)
	}
}

func TestWebhookPage_RedeliverSendsAFinishedDeliveryAgain(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var mu sync.Mutex
	var ids []string // the webhook-id of every request, in order
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		ids = append(ids, r.Header.Get("webhook-id"))
		if len(ids) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // the first attempt fails for good
		}
	}))
	t.Cleanup(receiver.Close)
	h := e.hook(t, receiver.URL+"/hooks", access.EventLicensesCreated)
	if _, err := e.svc.CreateLicenses(ctx, e.app.ID, access.LicenseRequest{Count: 1, Grant: access.Grant{Minutes: ptr(int64(60))}}); err != nil {
		t.Fatal(err)
	}
	delivery := func() access.WebhookDelivery {
		t.Helper()
		pg, err := e.svc.Deliveries(ctx, e.app.ID, h.ID, "", 10)
		if err != nil || len(pg.Items) != 1 {
			t.Fatalf("%d deliveries, %v", len(pg.Items), err)
		}
		return pg.Items[0]
	}
	settle := func(want access.DeliveryStatus) {
		t.Helper()
		stop := e.dispatch(t)
		defer stop()
		for deadline := time.Now().Add(10 * time.Second); delivery().Status != want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the delivery is %s, not %s", delivery().Status, want)
			}
		}
	}
	settle(access.DeliveryFailed)
	d := delivery()
	b := e.browser(t)
	b.signIn()
	path := "/admin/apps/" + e.app.ID + "/webhooks/" + h.ID
	redeliver := path + "/deliveries/" + d.ID + "/redeliver"
	for _, tc := range []struct {
		name    string
		before  func()
		status  int
		row     []string // what the delivery's row says afterwards
		noRetry bool     // the row has no redeliver button
	}{
		{"a failed delivery", nil, http.StatusOK, []string{"<td>pending</td>", "<td>1</td>", "<td>503</td>"}, true},
		{"a pending delivery is refused", nil, http.StatusConflict, []string{"<td>pending</td>"}, true},
		{"a delivered delivery", func() { settle(access.DeliveryDelivered) }, http.StatusOK, []string{"<td>pending</td>", "<td>2</td>", "<td>200</td>"}, true},
	} {
		if tc.before != nil {
			tc.before()
		}
		if _, body := b.get(path); !strings.Contains(rowOf(body, d.ID), redeliver) && tc.status == http.StatusOK {
			t.Fatalf("%s: the row has no redeliver button:\n%s", tc.name, rowOf(body, d.ID))
		}
		resp, body := b.post(redeliver, url.Values{})
		if resp.StatusCode != tc.status {
			t.Fatalf("%s: %d, want %d\n%s", tc.name, resp.StatusCode, tc.status, body)
		}
		_, body = b.get(path)
		row := rowOf(body, d.ID)
		for _, want := range tc.row {
			if !strings.Contains(row, want) {
				t.Errorf("%s: the row lacks %q:\n%s", tc.name, want, row)
			}
		}
		if strings.Contains(row, redeliver) == tc.noRetry {
			t.Errorf("%s: redeliver button shown = %v", tc.name, !tc.noRetry)
		}
	}
	wantDashboardAudit(t, e, string(access.EventWebhookRedelivered), d.ID)
	settle(access.DeliveryDelivered)
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != 3 || ids[0] != d.ID || ids[1] != d.ID || ids[2] != d.ID {
		t.Fatalf("the receiver got webhook-ids %v, want %s three times", ids, d.ID)
	}
}

func TestWebhookPages_RefuseRequestsWithoutAnAdministratorsSession(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	h := e.hook(t, "https://shop.example/hooks", access.EventLicensesCreated)
	if _, err := e.svc.CreateLicenses(ctx, e.app.ID, access.LicenseRequest{Count: 1, Grant: access.Grant{Minutes: ptr(int64(60))}}); err != nil {
		t.Fatal(err)
	}
	pg, err := e.svc.Deliveries(ctx, e.app.ID, h.ID, "", 10)
	if err != nil || len(pg.Items) != 1 {
		t.Fatalf("%d deliveries, %v", len(pg.Items), err)
	}
	// A user's session token of the client API is no dashboard session.
	password := "a long and unusual pass 7"
	u, err := e.svc.SignUp(ctx, &e.app.App, access.SignUpRequest{Username: "buyer", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.GrantUser(ctx, e.app.ID, u.ID, access.GrantRequest{Grant: access.Grant{GrantsLifetimeAccess: true}}); err != nil {
		t.Fatal(err)
	}
	grant, err := e.svc.Login(ctx, &e.app.App, access.LoginRequest{Credentials: access.Credentials{Username: "buyer", Password: password}})
	if err != nil {
		t.Fatal(err)
	}
	base := "/admin/apps/" + e.app.ID + "/webhooks"
	form := url.Values{"url": {"https://evil.example/"}, "event": {"user.banned"}, "enabled": {"on"}, "overlap_seconds": {"0"}, "csrf": {"x"}}.Encode()
	requests := []struct{ method, path string }{
		{"GET", base},
		{"GET", base + "/" + h.ID},
		{"POST", base},
		{"POST", base + "/" + h.ID + "/settings"},
		{"POST", base + "/" + h.ID + "/rotate_secret"},
		{"POST", base + "/" + h.ID + "/delete"},
		{"POST", base + "/" + h.ID + "/deliveries/" + pg.Items[0].ID + "/redeliver"},
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, who := range []struct{ name, cookie string }{
		{"no session", ""},
		{"a client API user's session", grant.Token},
		{"a made-up session", "bm90LWEtc2Vzc2lvbg"},
	} {
		for _, rq := range requests {
			req, _ := http.NewRequest(rq.method, e.srv.URL+rq.path, strings.NewReader(form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			if who.cookie != "" {
				req.AddCookie(&http.Cookie{Name: "aa_dash", Value: who.cookie})
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/admin/signin" {
				t.Errorf("%s, %s %s: %d to %q, want 303 to the sign-in page", who.name, rq.method, rq.path, resp.StatusCode, resp.Header.Get("Location"))
			}
		}
	}
	hs, _ := e.svc.Webhooks(ctx, e.app.ID)
	stored := e.storedWebhook(t, h.ID)
	if len(hs) != 1 || stored.URL != h.URL || stored.PreviousSealedSecret != nil || openedSecrets(t, stored)[0] != h.Secret {
		t.Fatal("a refused request changed the endpoints")
	}
	if d, _ := e.svc.Deliveries(ctx, e.app.ID, h.ID, "", 10); d.Items[0].Status != access.DeliveryPending || d.Items[0].Attempts != 0 {
		t.Fatal("a refused request touched the delivery")
	}
}
