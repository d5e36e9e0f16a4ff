package adminapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminapi"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// auditLog lists every entry of an application's audit log matching
// query, following the cursor a page of limit at a time.
func (s *testServer) auditLog(appID string, query url.Values, limit int) []wire.AuditEntry {
	s.t.Helper()
	var out []wire.AuditEntry
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("limit", fmt.Sprint(limit))
	for range 1000 {
		page := decode[wire.Page[wire.AuditEntry]](s, http.StatusOK, "GET", "/apps/"+appID+"/audit?"+q.Encode(), nil)
		out = append(out, page.Items...)
		if page.Next == nil {
			return out
		}
		q.Set("after", *page.Next)
	}
	s.t.Fatal("the audit log's pages never end")
	return nil
}

// The routes that change nothing although they are not GETs.
var readOnlyRoutes = []string{"POST /apps/{app}/licenses/lookup"}

// serverLogRoutes act on the server, not on one application: the
// server's own audit log holds them (TestServerAuditLog_...). Beginning a
// TOTP enrolment changes nothing until it is confirmed, and is not
// recorded; an import needs an empty store and is tested in package
// access.
var serverLogRoutes = []string{"POST /import", "POST /backup", "POST /admins", "DELETE /admins/{admin}", "POST /admins/{admin}/totp",
	"POST /admins/{admin}/totp/confirm", "DELETE /admins/{admin}/totp", "POST /admins/{admin}/password"}

func TestAuditLog_EveryManagementRouteIsRecordedWithItsPrincipal(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	var (
		app       wire.App
		spare     = s.createApp(map[string]any{"name": "to delete"})
		licenses  wire.IssuedLicenses
		file      wire.FileInfo
		key       wire.SellerKey
		hook      wire.Webhook
		delivery  string
		signing   wire.SigningKey
		firstKey  string
		user, del *access.UserView
	)
	// signUp makes the users the user routes act on, once the app exists.
	signUp := func() {
		a, err := s.svc.App(ctx, app.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range []**access.UserView{&user, &del} {
			if *u, err = s.svc.SignUp(ctx, a, access.SignUpRequest{Username: fmt.Sprintf("user%p", u), Password: "correct-horse-9"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	appPath := func(p string) func() string { return func() string { return "/apps/" + app.ID + p } }
	userPath := func(p string) func() string {
		return func() string { return "/apps/" + app.ID + "/users/" + user.ID + p }
	}
	for _, tt := range []struct {
		route  string // the route's pattern
		path   func() string
		body   any
		status int
		keep   func(raw []byte) // reads the answer
		action string
		appID  func() string // whose log; default app's
		target func() string
		userID func() string
		after  string // a fragment of the entry's after
		before string // a fragment of the entry's before
	}{
		{route: "POST /apps", path: func() string { return "/apps" }, body: map[string]any{"name": "audited"}, status: 201,
			keep: func(raw []byte) { must(t, json.Unmarshal(raw, &app)); signUp() }, action: "app.created",
			target: func() string { return app.ID }, after: `"name":"audited"`},
		{route: "PATCH /apps/{app}", path: appPath(""), body: map[string]any{"name": "renamed", "max_devices": 3}, status: 200,
			action: "app.changed", target: func() string { return app.ID }, after: `"max_devices":3,"name":"renamed"}`,
			before: `{"max_devices":1,"name":"audited"}`},
		{route: "POST /apps/{app}/rotate_secret", path: appPath("/rotate_secret"), status: 200,
			action: "app.secret_rotated", target: func() string { return app.ID }},
		{route: "POST /apps/{app}/licenses", path: appPath("/licenses"), body: map[string]any{"count": 2, "minutes": 60}, status: 201,
			keep: func(raw []byte) { must(t, json.Unmarshal(raw, &licenses)) }, action: "licenses.created",
			target: func() string { return licenses.Licenses[0].ID }, after: `"count":2`},
		{route: "DELETE /apps/{app}/licenses/{license}", path: func() string { return "/apps/" + app.ID + "/licenses/" + licenses.Licenses[1].ID },
			status: 204, action: "license.deleted", target: func() string { return licenses.Licenses[1].ID }},
		{route: "POST /apps/{app}/webhooks", path: appPath("/webhooks"), body: map[string]any{"url": "https://example.com/hook", "events": []string{"user.banned"}},
			status: 201, keep: func(raw []byte) { must(t, json.Unmarshal(raw, &hook)) }, action: "webhook.created",
			target: func() string { return hook.ID }, after: `"url":"https://example.com/…"`},
		{route: "POST /apps/{app}/users/{user}/ban", path: userPath("/ban"), body: map[string]any{"reason": "chargeback"}, status: 204,
			action: "user.banned", userID: func() string { return user.ID }, after: `"reason":"chargeback"`},
		{route: "POST /apps/{app}/users/{user}/unban", path: userPath("/unban"), status: 204,
			action: "user.unbanned", userID: func() string { return user.ID }},
		{route: "DELETE /apps/{app}/users/{user}/devices", path: userPath("/devices"), status: 204,
			action: "user.devices_reset", userID: func() string { return user.ID }},
		{route: "DELETE /apps/{app}/users/{user}/sessions", path: userPath("/sessions"), status: 204,
			action: "user.sessions_ended", userID: func() string { return user.ID }},
		{route: "POST /apps/{app}/users/{user}/grant", path: userPath("/grant"), body: map[string]any{"minutes": 30}, status: 201,
			action: "membership.granted", userID: func() string { return user.ID }, after: `"minutes":30`},
		{route: "POST /apps/{app}/users/{user}/password", path: userPath("/password"), body: map[string]any{"password": "new-secret-pass-77"}, status: 204,
			action: "user.password_changed", userID: func() string { return user.ID }},
		{route: "DELETE /apps/{app}/users/{user}", path: func() string { return "/apps/" + app.ID + "/users/" + del.ID }, status: 204,
			action: "user.deleted", userID: func() string { return del.ID }, before: `"username":"user`},
		{route: "PUT /apps/{app}/variables/{name}", path: appPath("/variables/motd"), body: map[string]any{"value": "variable-value-not-logged"}, status: 200,
			action: "variable.set", target: func() string { return "motd" }},
		{route: "DELETE /apps/{app}/variables/{name}", path: appPath("/variables/motd"), status: 204,
			action: "variable.deleted", target: func() string { return "motd" }},
		{route: "POST /apps/{app}/files", path: appPath("/files?name=readme.txt"), body: "file-contents-not-logged", status: 201,
			keep: func(raw []byte) { must(t, json.Unmarshal(raw, &file)) }, action: "file.uploaded",
			target: func() string { return file.ID }, after: `"name":"readme.txt"`},
		{route: "DELETE /apps/{app}/files/{file}", path: func() string { return "/apps/" + app.ID + "/files/" + file.ID }, status: 204,
			action: "file.deleted", target: func() string { return file.ID }},
		{route: "POST /apps/{app}/keys", path: appPath("/keys"), body: map[string]any{"name": "shop", "scopes": []string{"licenses:create"}}, status: 201,
			keep: func(raw []byte) { must(t, json.Unmarshal(raw, &key)) }, action: "seller_key.created",
			target: func() string { return key.ID }, after: `"scopes":"licenses:create"`},
		{route: "DELETE /apps/{app}/keys/{key}", path: func() string { return "/apps/" + app.ID + "/keys/" + key.ID }, status: 204,
			action: "seller_key.revoked", target: func() string { return key.ID }},
		{route: "PATCH /apps/{app}/webhooks/{webhook}", path: func() string { return "/apps/" + app.ID + "/webhooks/" + hook.ID },
			body: map[string]any{"enabled": false}, status: 200, action: "webhook.changed", target: func() string { return hook.ID },
			before: `"enabled":true`, after: `"enabled":false`},
		{route: "POST /apps/{app}/webhooks/{webhook}/rotate_secret", path: func() string { return "/apps/" + app.ID + "/webhooks/" + hook.ID + "/rotate_secret" },
			body: map[string]any{"overlap_seconds": 3600}, status: 200, action: "webhook.secret_rotated", target: func() string { return hook.ID },
			after: `"overlap_seconds":3600`},
		{route: "POST /apps/{app}/webhooks/{webhook}/deliveries/{delivery}/redeliver", path: func() string {
			// The ban's delivery, failed as a dispatcher would record it.
			page, err := s.svc.Deliveries(ctx, app.ID, hook.ID, "", 1)
			must(t, err)
			d := page.Items[0]
			d.Status, d.Attempts = access.DeliveryFailed, 1
			must(t, s.store.UpdateDelivery(ctx, &d, 0))
			delivery = d.ID
			return "/apps/" + app.ID + "/webhooks/" + hook.ID + "/deliveries/" + d.ID + "/redeliver"
		}, status: 202, action: "webhook.redelivery_requested", target: func() string { return delivery }},
		{route: "DELETE /apps/{app}/webhooks/{webhook}", path: func() string { return "/apps/" + app.ID + "/webhooks/" + hook.ID },
			status: 204, action: "webhook.deleted", target: func() string { return hook.ID }, before: `"url":"https://example.com/…"`},
		{route: "POST /apps/{app}/signing_keys", path: appPath("/signing_keys"), status: 201,
			keep: func(raw []byte) {
				must(t, json.Unmarshal(raw, &signing))
				keys, err := s.svc.SigningKeys(ctx, app.ID)
				must(t, err)
				firstKey = keys[0].ID
			}, action: "app.signing_key_rotated", target: func() string { return signing.ID }, after: `"generation":2`},
		{route: "DELETE /apps/{app}/signing_keys/{kid}", path: func() string { return "/apps/" + app.ID + "/signing_keys/" + firstKey }, status: 204,
			action: "app.signing_key_retired", target: func() string { return firstKey }, before: `"generation":1`},
		{route: "DELETE /apps/{app}", path: func() string { return "/apps/" + spare.ID }, status: 204,
			action: "app.deleted", appID: func() string { return spare.ID }, target: func() string { return spare.ID }, after: ""},
	} {
		t.Run(tt.route, func(t *testing.T) {
			a := s.do(strings.Fields(tt.route)[0], tt.path(), nil, tt.body)
			if a.status != tt.status {
				t.Fatalf("status %d, want %d; body %s", a.status, tt.status, a.raw)
			}
			if tt.keep != nil {
				tt.keep(a.raw)
			}
			appID := app.ID
			if tt.appID != nil {
				appID = tt.appID()
			}
			entries := s.auditLog(appID, url.Values{"action": {tt.action}}, 100)
			if len(entries) != 1 {
				t.Fatalf("%d %s entries, want 1: %+v", len(entries), tt.action, entries)
			}
			e := entries[0]
			if e.Principal.Kind != adminapi.PrincipalAdminEndpoint || !strings.HasPrefix(e.Principal.Name, "127.0.0.1:") {
				t.Errorf("principal %+v, want the admin endpoint's caller", e.Principal)
			}
			if tt.target != nil && e.Target != tt.target() {
				t.Errorf("target %q, want %q", e.Target, tt.target())
			}
			if tt.userID != nil && (e.UserID == nil || *e.UserID != tt.userID()) {
				t.Errorf("user %v, want %s", e.UserID, tt.userID())
			}
			if !strings.Contains(string(e.After), tt.after) || !strings.Contains(string(e.Before), tt.before) {
				t.Errorf("before %s, after %s; want them to hold %s and %s", e.Before, e.After, tt.before, tt.after)
			}
			if e.AppID == nil || *e.AppID != appID || e.Action != tt.action {
				t.Errorf("entry %+v of application %s", e, appID)
			}
		})
	}
	t.Run("every mutating route has a case", func(t *testing.T) {
		// The table above is the list of audited routes; a new route that
		// changes something needs its case.
		tested := map[string]bool{}
		for _, r := range []string{"POST /apps/{app}/keys", "DELETE /apps/{app}/keys/{key}", "POST /apps", "PATCH /apps/{app}", "POST /apps/{app}/rotate_secret", "POST /apps/{app}/licenses",
			"DELETE /apps/{app}/licenses/{license}", "POST /apps/{app}/users/{user}/ban", "POST /apps/{app}/users/{user}/unban",
			"DELETE /apps/{app}/users/{user}/devices", "DELETE /apps/{app}/users/{user}/sessions", "POST /apps/{app}/users/{user}/grant",
			"POST /apps/{app}/users/{user}/password", "DELETE /apps/{app}/users/{user}", "PUT /apps/{app}/variables/{name}",
			"DELETE /apps/{app}/variables/{name}", "POST /apps/{app}/files", "DELETE /apps/{app}/files/{file}", "DELETE /apps/{app}",
			"POST /apps/{app}/webhooks", "PATCH /apps/{app}/webhooks/{webhook}", "DELETE /apps/{app}/webhooks/{webhook}",
			"POST /apps/{app}/webhooks/{webhook}/deliveries/{delivery}/redeliver", "POST /apps/{app}/webhooks/{webhook}/rotate_secret",
			"POST /apps/{app}/signing_keys", "DELETE /apps/{app}/signing_keys/{kid}"} {
			tested[r] = true
		}
		for _, p := range adminapi.RoutePatterns() {
			if strings.HasPrefix(p, "GET ") || slices.Contains(readOnlyRoutes, p) || slices.Contains(serverLogRoutes, p) {
				continue
			}
			if !tested[p] {
				t.Errorf("route %s changes something but its audit entry is not tested", p)
			}
		}
	})
}

func TestAuditLog_HoldsNoSecretPasswordCodeOrToken(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	created := s.createApp(map[string]any{"name": "secrets"})
	rotated := decode[wire.SecretRotation](s, http.StatusOK, "POST", "/apps/"+created.ID+"/rotate_secret", nil)
	hook := decode[wire.Webhook](s, http.StatusCreated, "POST", "/apps/"+created.ID+"/webhooks",
		map[string]any{"url": "https://example.com/hook", "events": []string{"user.signed_up"}})
	rotatedHook := decode[wire.Webhook](s, http.StatusOK, "POST", "/apps/"+created.ID+"/webhooks/"+hook.ID+"/rotate_secret", nil)
	issued := decode[wire.IssuedLicenses](s, http.StatusCreated, "POST", "/apps/"+created.ID+"/licenses",
		map[string]any{"codes": []string{"K7Q2-M9XP-4TZR-H3WN-B8VC"}, "minutes": 60})
	app, err := s.svc.App(ctx, created.ID)
	must(t, err)
	const password, newPassword, wrongPassword = "first-pass-phrase-1", "second-pass-phrase-2", "wrong-pass-phrase-3"
	u, err := s.svc.SignUp(ctx, app, access.SignUpRequest{Username: "holder", Password: password})
	must(t, err)
	_, err = s.svc.GrantUser(ctx, app.ID, u.ID, access.GrantRequest{Grant: access.Grant{GrantsLifetimeAccess: true}})
	must(t, err)
	client := access.WithClientAddress(ctx, "192.0.2.44")
	grant, err := s.svc.Login(client, app, access.LoginRequest{Credentials: access.Credentials{Username: "holder", Password: password}})
	must(t, err)
	must(t, s.svc.ChangePassword(client, app, access.PasswordChange{Username: "holder", OldPassword: password, NewPassword: newPassword, Token: grant.Token}))
	if a := s.do("POST", "/apps/"+app.ID+"/users/"+u.ID+"/password", nil, map[string]any{"password": password + "x"}); a.status != http.StatusNoContent {
		t.Fatalf("password reset: status %d, body %s", a.status, a.raw)
	}
	for range access.DefaultThrottlePolicy.AccountAddressFree {
		_, err := s.svc.Login(client, app, access.LoginRequest{Credentials: access.Credentials{Username: "holder", Password: wrongPassword}})
		if access.CodeOf(err) != access.CodeInvalidCredentials {
			t.Fatalf("wrong password: %v", err)
		}
	}

	entries := s.auditLog(app.ID, nil, 1000)
	raw, err := json.Marshal(entries)
	must(t, err)
	for name, secret := range map[string]string{"app secret": created.APISecret, "rotated secret": rotated.APISecret,
		"license code": issued.Licenses[0].Code, "code without dashes": strings.ReplaceAll(issued.Licenses[0].Code, "-", ""),
		"password": password, "new password": newPassword, "reset password": password + "x", "wrong password": wrongPassword,
		"session token": grant.Token, "session token hash": access.SecretHash(grant.Token), "secret hash": access.SecretHash(created.APISecret),
		"rotated secret hash": access.SecretHash(rotated.APISecret), "code hint": issued.Licenses[0].CodeHint,
		"webhook secret": hook.Secret, "rotated webhook secret": rotatedHook.Secret} {
		if secret == "" {
			t.Fatalf("%s: empty", name)
		}
		if strings.Contains(string(raw), secret) {
			t.Errorf("the audit log holds the %s: %s", name, raw)
		}
	}
	// The client's own actions are recorded with the client as principal.
	client44 := access.Principal{Kind: access.PrincipalClient, Name: "192.0.2.44"}
	for _, action := range []string{"user.password_changed", string(access.EventLoginThrottled)} {
		found := false
		for _, e := range entries {
			found = found || (e.Action == action && e.Principal == wire.Principal(client44) && e.UserID != nil && *e.UserID == u.ID)
		}
		if !found {
			t.Errorf("no %s entry by %+v in %s", action, client44, raw)
		}
	}
}

func TestAuditLog_FilteredPagesVisitEveryMatchOnce(t *testing.T) {
	s := newTestServer(t)
	app := s.createApp(nil)
	start := time.Now().Add(-time.Second)
	for i := range 9 {
		decode[wire.Variable](s, http.StatusOK, "PUT", fmt.Sprintf("/apps/%s/variables/v%d", app.ID, i), map[string]any{"value": "x"})
		if i%3 == 0 {
			s.do("DELETE", fmt.Sprintf("/apps/%s/variables/v%d", app.ID, i), nil, nil)
		}
	}
	a, err := s.svc.App(context.Background(), app.ID)
	must(t, err)
	u, err := s.svc.SignUp(context.Background(), a, access.SignUpRequest{Username: "watched", Password: "correct-horse-9"})
	must(t, err)
	for range 2 {
		s.do("POST", "/apps/"+app.ID+"/users/"+u.ID+"/ban", nil, nil)
		s.do("POST", "/apps/"+app.ID+"/users/"+u.ID+"/unban", nil, nil)
	}
	all := s.auditLog(app.ID, nil, 1000)
	if len(all) != 1+9+3+4 {
		t.Fatalf("%d entries, want 17", len(all))
	}
	for _, tt := range []struct {
		name  string
		query url.Values
		want  int
	}{
		{"everything", nil, 17},
		{"a user", url.Values{"user": {u.ID}}, 4},
		{"a user and an action", url.Values{"user": {u.ID}, "action": {"user.banned"}}, 2},
		{"one action", url.Values{"action": {"variable.set"}}, 9},
		{"another action", url.Values{"action": {"variable.deleted"}}, 3},
		{"since the start", url.Values{"since": {start.UTC().Format(time.RFC3339Nano)}}, 17},
		{"until the start", url.Values{"until": {start.UTC().Format(time.RFC3339Nano)}}, 0},
		{"a user with none", url.Values{"user": {"0190f6a2-6b7e-7c3a-9f00-000000000000"}}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, limit := range []int{1, 2, 5, 1000} {
				got := s.auditLog(app.ID, tt.query, limit)
				ids := map[string]bool{}
				for i, e := range got {
					if ids[e.ID] || (i > 0 && got[i-1].ID >= e.ID) {
						t.Fatalf("limit %d: entry %s out of order or twice", limit, e.ID)
					}
					ids[e.ID] = true
					if a, u := tt.query.Get("action"), tt.query.Get("user"); (a != "" && e.Action != a) || (u != "" && (e.UserID == nil || *e.UserID != u)) {
						t.Fatalf("limit %d: entry %+v does not match %v", limit, e, tt.query)
					}
				}
				if len(got) != tt.want {
					t.Fatalf("limit %d: %d entries, want %d", limit, len(got), tt.want)
				}
			}
		})
	}
	for _, q := range []string{"since=yesterday", "until=2026-13-01T00:00:00Z", "user=nobody", "after=nope", "since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z"} {
		if a := s.do("GET", "/apps/"+app.ID+"/audit?"+q, nil, nil); a.status != http.StatusUnprocessableEntity || a.problem(t).Code != string(access.CodeValidationFailed) {
			t.Errorf("?%s: status %d, want 422 validation_failed; body %s", q, a.status, a.raw)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestServerAuditLog_AdministratorsExportAndBackupAreRecordedWithTheirCaller(t *testing.T) {
	s := newTestServer(t)
	decode[wire.Admin](s, http.StatusCreated, "POST", "/admins", map[string]any{"username": "dana", "password": "a long enough phrase"})
	en := decode[wire.TOTPEnrolment](s, http.StatusOK, "POST", "/admins/dana/totp", nil)
	code, err := totp.GenerateCode(en.Secret, time.Now())
	must(t, err)
	for _, c := range []struct {
		method, path string
		body         any
		status       int
	}{
		{"POST", "/admins/dana/totp/confirm", map[string]any{"code": code}, http.StatusNoContent},
		{"DELETE", "/admins/dana/totp", nil, http.StatusNoContent},
		{"POST", "/admins/dana/password", map[string]any{"password": "another long phrase"}, http.StatusNoContent},
		{"DELETE", "/admins/dana", nil, http.StatusNoContent},
		// This server's store is MongoDB: a refused backup is not recorded
		// (package access tests a backup of SQLite).
		{"POST", "/backup", map[string]any{"path": filepath.Join(t.TempDir(), "copy.db")}, http.StatusConflict},
	} {
		if a := s.do(c.method, c.path, nil, c.body); a.status != c.status {
			t.Fatalf("%s %s: status %d, want %d; body %s", c.method, c.path, a.status, c.status, a.raw)
		}
	}
	// JSON Lines, which the document's validator cannot read.
	res, err := http.Get(s.url + "/export")
	must(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	page := decode[wire.Page[wire.AuditEntry]](s, http.StatusOK, "GET", "/audit", nil)
	var got []string
	for _, e := range page.Items {
		got = append(got, e.Action+" "+e.Target)
		if e.AppID != nil || e.Principal.Kind != adminapi.PrincipalAdminEndpoint || !strings.HasPrefix(e.Principal.Name, "127.0.0.1:") {
			t.Errorf("entry %+v: want the server's log and the admin endpoint's caller", e)
		}
	}
	slices.Sort(got) // one millisecond's entries have no order
	want := []string{"admin.created dana", "admin.deleted dana", "admin.password_set dana", "admin.totp_disabled dana", "admin.totp_enabled dana", "store.exported "}
	if len(got) != len(want) {
		t.Fatalf("server log %q, want %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("entry %d: %q, want %q", i, got[i], want[i])
		}
	}
	if a := s.do("GET", "/audit?since=nonsense", nil, nil); a.status != http.StatusUnprocessableEntity {
		t.Errorf("a bad filter: status %d", a.status)
	}
}
