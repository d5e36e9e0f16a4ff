package caddymodule

import (
	"strings"
	"testing"
	"time"
)

func TestSignUp_CreatesAnInactiveUser(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	r := request(t, "POST", apiBase+"/sign_up", a.headers(), map[string]any{"username": "Alice", "password": "correct horse", "extra": 1})
	expect(t, r, 201, "")
	m := r.obj("membership")
	if r.str("id") == "" || r.str("username") != "Alice" || m["is_active"] != false || m["is_lifetime"] != false || m["expires_at"] != nil {
		t.Fatalf("user %s", r.raw)
	}
}

func TestSignUp_RefusesInvalidInput(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	signUp(t, a, "taken", "vortex-lamp-71")
	tests := []struct {
		name   string
		body   any
		status int
		code   string
		field  string
	}{
		{"missing username", map[string]any{"password": "vortex-lamp-71"}, 422, "validation_failed", "username"},
		{"missing password", map[string]any{"username": "bob"}, 422, "validation_failed", "password"},
		{"short password", map[string]any{"username": "bob", "password": "1234567"}, 422, "validation_failed", "password"},
		{"password over 1024 bytes", map[string]any{"username": "bob", "password": strings.Repeat("x", 1025)}, 422, "validation_failed", "password"},
		{"short username", map[string]any{"username": "ab", "password": "vortex-lamp-71"}, 422, "validation_failed", "username"},
		{"long username", map[string]any{"username": strings.Repeat("a", 65), "password": "vortex-lamp-71"}, 422, "validation_failed", "username"},
		{"leading space", map[string]any{"username": " bob", "password": "vortex-lamp-71"}, 422, "validation_failed", "username"},
		{"control character", map[string]any{"username": "bo\nb", "password": "vortex-lamp-71"}, 422, "validation_failed", "username"},
		{"wrong type", map[string]any{"username": 42, "password": "vortex-lamp-71"}, 422, "validation_failed", "username"},
		{"malformed JSON", `{"username": "bob",`, 422, "validation_failed", "body"},
		{"empty body", ``, 422, "validation_failed", "body"},
		{"body over 2 MiB", map[string]any{"username": "bob", "password": "vortex-lamp-71", "pad": strings.Repeat("x", 3<<20)}, 413, "payload_too_large", ""},
		{"taken name in other case", map[string]any{"username": "TAKEN", "password": "vortex-lamp-71"}, 409, "username_taken", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := request(t, "POST", apiBase+"/sign_up", a.headers(), tt.body)
			expect(t, r, tt.status, tt.code)
			if tt.field != "" && !strings.Contains(string(r.raw), `"field":"`+tt.field+`"`) {
				t.Fatalf("errors do not name %s: %s", tt.field, r.raw)
			}
		})
	}
}

func TestSignUpWithLicenseCode_ActivatesTheCodeOnce(t *testing.T) {
	startServer(t, "", "")
	a, other := createApp(t, nil), createApp(t, nil)
	code := issueCode(t, a, map[string]any{"minutes": 60})
	// Codes match ignoring case, dashes and spaces.
	typed := strings.ToLower(strings.ReplaceAll(code, "-", " "))
	r := request(t, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": typed})
	expect(t, r, 201, "")
	m := r.obj("membership")
	if r.str("username") == "" || m["is_active"] != true || m["expires_at"] == nil {
		t.Fatalf("user %s", r.raw)
	}
	for _, tt := range []struct {
		name string
		app  app
		body map[string]any
		code string
	}{
		{"used code", a, map[string]any{"code": code}, "license_used"},
		{"unknown code", a, map[string]any{"code": "AAAAA-BBBBB-CCCCC-DDDDD-EEEEE"}, "license_invalid"},
		{"another application's code", other, map[string]any{"code": issueCode(t, a, map[string]any{"minutes": 5})}, "license_invalid"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, request(t, "POST", apiBase+"/sign_up_with_license_code", tt.app.headers(), tt.body), 401, tt.code)
		})
	}
	expect(t, request(t, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{}), 422, "validation_failed")
}

func TestLogin_UnknownUserAndWrongPasswordLookAlike(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	activeUser(t, a, "dave", "vortex-lamp-71")
	unknown := login(t, a, map[string]any{"username": "nobody", "password": "vortex-lamp-71"}, "")
	wrong := login(t, a, map[string]any{"username": "dave", "password": "password2"}, "")
	expect(t, unknown, 401, "invalid_credentials")
	expect(t, wrong, 401, "invalid_credentials")
	if string(unknown.raw) != string(wrong.raw) {
		t.Fatalf("bodies differ:\n%s\n%s", unknown.raw, wrong.raw)
	}
	// Same time too: both run one argon2id verification.
	timeOf := func(user string) time.Duration {
		var best time.Duration
		for i := 0; i < 3; i++ {
			start := time.Now()
			login(t, a, map[string]any{"username": user, "password": "wrong-password"}, "")
			if d := time.Since(start); best == 0 || d < best {
				best = d
			}
		}
		return best
	}
	known, none := timeOf("dave"), timeOf("nobody")
	if ratio := float64(known) / float64(none); ratio < 0.5 || ratio > 2 {
		t.Fatalf("wrong password took %v, unknown user %v", known, none)
	}
}

func TestLogin_OpensASessionOrRefuses(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	userID := activeUser(t, a, "erin", "vortex-lamp-71")
	signUp(t, a, "idle", "vortex-lamp-71")
	code := issueCode(t, a, map[string]any{"grants_lifetime_access": true})
	expect(t, request(t, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": code}), 201, "")
	unused := issueCode(t, a, map[string]any{"minutes": 5})

	r := login(t, a, map[string]any{"username": "ERIN", "password": "vortex-lamp-71"}, "")
	expect(t, r, 200, "")
	if len(r.str("session_token")) < 43 || !strings.HasSuffix(r.str("expires_at"), "Z") {
		t.Fatalf("session %s", r.raw)
	}
	expires, err := time.Parse(time.RFC3339, r.str("expires_at"))
	if err != nil || time.Until(expires) < 23*time.Hour || time.Until(expires) > 25*time.Hour {
		t.Fatalf("expires_at %q is not about 24h away", r.str("expires_at"))
	}
	expect(t, login(t, a, map[string]any{"code": code}, ""), 200, "")
	expect(t, login(t, a, map[string]any{"code": unused}, ""), 401, "invalid_credentials")
	expect(t, login(t, a, map[string]any{"username": "idle", "password": "vortex-lamp-71"}, ""), 403, "membership_inactive")
	expect(t, login(t, a, map[string]any{"username": "idle", "password": "wrong-password"}, ""), 401, "invalid_credentials")
	expect(t, request(t, "POST", apiBase+"/auth/login", a.headers(), map[string]any{}), 422, "validation_failed")
	expect(t, login(t, a, map[string]any{"username": "erin"}, ""), 422, "validation_failed")

	expect(t, request(t, "POST", adminBase+"/apps/"+a.id+"/users/"+userID+"/ban", nil, map[string]any{"reason": "cheating"}), 204, "")
	expect(t, login(t, a, map[string]any{"username": "erin", "password": "vortex-lamp-71"}, ""), 403, "user_banned")
	// A banned user's wrong password reveals nothing about the ban.
	expect(t, login(t, a, map[string]any{"username": "erin", "password": "password2"}, ""), 401, "invalid_credentials")

	u := request(t, "GET", adminBase+"/apps/"+a.id+"/users/"+userID, nil, nil)
	if u.str("last_login_ip") != "127.0.0.1" || u.str("last_login_at") == "" {
		t.Fatalf("last login not recorded: %s", u.raw)
	}
}

func TestAppContext_AuthenticatesEachForm(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	expect(t, request(t, "PUT", adminBase+"/apps/"+a.id+"/variables/motd", nil, map[string]any{"value": "hello"}), 200, "")
	activeUser(t, a, "fay", "vortex-lamp-71")
	code := issueCode(t, a, map[string]any{"minutes": 60})
	expect(t, request(t, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": code}), 201, "")
	token := login(t, a, map[string]any{"username": "fay", "password": "vortex-lamp-71"}, "").str("session_token")

	for _, tt := range []struct {
		name    string
		headers map[string]string
		user    string
	}{
		{"bearer token", a.headers("Authorization", "Bearer "+token), "fay"},
		{"license code header", a.headers("x-api-license-code", code), ""},
		{"username and password headers", a.headers("x-api-username", "fay", "x-api-password", "vortex-lamp-71"), "fay"},
		{"bearer wins over other headers", a.headers("Authorization", "Bearer "+token, "x-api-username", "x", "x-api-password", "y"), "fay"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for i := 0; i < 2; i++ { // cold, then warm caches
				r := request(t, "GET", apiBase+"/app_context", tt.headers, nil)
				expect(t, r, 200, "")
				app, user := r.obj("application"), r.obj("user")
				if app["id"] != a.id || app["name"] != "test app" || user == nil || user["id"] == "" {
					t.Fatalf("context %s", r.raw)
				}
				if tt.user != "" && user["username"] != tt.user {
					t.Fatalf("user %v, want %s", user["username"], tt.user)
				}
				vars := app["variables"].([]any)
				if len(vars) != 1 || vars[0].(map[string]any)["value"] != "hello" {
					t.Fatalf("variables %v", vars)
				}
			}
		})
	}
}

func TestAppContext_RefusesWithTheSpecifiedStatuses(t *testing.T) {
	startServer(t, "", "")
	a, other := createApp(t, nil), createApp(t, nil)
	signUp(t, a, "gus", "vortex-lamp-71")
	activeUser(t, other, "hal", "vortex-lamp-71")
	otherToken := login(t, other, map[string]any{"username": "hal", "password": "vortex-lamp-71"}, "").str("session_token")
	tests := []struct {
		name    string
		headers map[string]string
		status  int
		code    string
	}{
		{"no user", a.headers(), 401, "authentication_required"},
		{"wrong password", a.headers("x-api-username", "gus", "x-api-password", "nope-nope"), 401, "invalid_credentials"},
		{"unknown token", a.headers("Authorization", "Bearer st_nothing"), 401, "invalid_credentials"},
		{"token of another application", a.headers("Authorization", "Bearer "+otherToken), 401, "invalid_credentials"},
		{"unknown license code", a.headers("x-api-license-code", "AAAAA-AAAAA"), 401, "invalid_credentials"},
		{"inactive membership", a.headers("x-api-username", "gus", "x-api-password", "vortex-lamp-71"), 403, "membership_inactive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := request(t, "GET", apiBase+"/app_context", tt.headers, nil)
			expect(t, r, tt.status, tt.code)
		})
	}
	r := request(t, "GET", apiBase+"/app_context", a.headers(), nil)
	if r.str("detail") != "Only logged in users are allowed to access" {
		t.Fatalf("detail %q", r.str("detail"))
	}
}

func TestAppContext_AnonymousAccessStillChecksSentCredentials(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, map[string]any{"anonymous_access": true})
	activeUser(t, a, "ivy", "vortex-lamp-71")
	r := request(t, "GET", apiBase+"/app_context", a.headers(), nil)
	expect(t, r, 200, "")
	if _, ok := r.body["user"]; !ok || r.body["user"] != nil {
		t.Fatalf("anonymous context %s, want user null", r.raw)
	}
	expect(t, request(t, "GET", apiBase+"/app_context", a.headers("x-api-username", "ivy", "x-api-password", "bad-password"), nil), 401, "invalid_credentials")
	r = request(t, "GET", apiBase+"/app_context", a.headers("x-api-username", "ivy", "x-api-password", "vortex-lamp-71"), nil)
	expect(t, r, 200, "")
	if r.obj("user")["username"] != "ivy" {
		t.Fatalf("context %s", r.raw)
	}
}

func TestActivateLicense_AddsTimeOnce(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	signUp(t, a, "jan", "vortex-lamp-71")
	code := issueCode(t, a, map[string]any{"minutes": 90})
	body := map[string]any{"code": code, "username": "jan", "password": "vortex-lamp-71"}
	r := request(t, "POST", apiBase+"/activate_license", a.headers(), body)
	expect(t, r, 201, "")
	occurred, err := time.Parse(time.RFC3339Nano, r.str("occurred_at"))
	if err != nil || !strings.HasSuffix(r.str("occurred_at"), "Z") || time.Since(occurred) > time.Minute {
		t.Fatalf("occurred_at %q", r.str("occurred_at"))
	}
	if r.body["minutes"] != 90.0 || r.body["grants_lifetime_access"] != false || r.body["revokes_lifetime_access"] != false ||
		r.str("type") != "license" || r.str("license_id") == "" || r.str("id") == "" || len(r.body) != 7 {
		t.Fatalf("activation record %s", r.raw)
	}
	second := issueCode(t, a, map[string]any{"minutes": 30})
	expect(t, request(t, "POST", apiBase+"/activate_license", a.headers(), map[string]any{"code": second, "username": "jan", "password": "vortex-lamp-71"}), 201, "")
	ctx := request(t, "GET", apiBase+"/app_context", a.headers("x-api-username", "jan", "x-api-password", "vortex-lamp-71"), nil)
	expires, _ := time.Parse(time.RFC3339Nano, ctx.obj("user")["membership"].(map[string]any)["expires_at"].(string))
	if got := expires.Sub(occurred); got != 120*time.Minute {
		t.Fatalf("membership runs %v after the first activation, want 2h", got)
	}

	lifetime := issueCode(t, a, map[string]any{"grants_lifetime_access": true})
	r = request(t, "POST", apiBase+"/activate_license", a.headers(), map[string]any{"code": lifetime, "username": "jan", "password": "vortex-lamp-71"})
	expect(t, r, 201, "")
	if r.body["minutes"] != nil || r.body["grants_lifetime_access"] != true {
		t.Fatalf("lifetime record %s", r.raw)
	}

	for _, tt := range []struct {
		name   string
		body   map[string]any
		status int
		code   string
	}{
		{"used code", body, 401, "license_used"},
		{"wrong password", map[string]any{"code": issueCode(t, a, map[string]any{"minutes": 1}), "username": "jan", "password": "password2"}, 401, "invalid_credentials"},
		{"unknown code", map[string]any{"code": "ZZZZZ-ZZZZZ", "username": "jan", "password": "vortex-lamp-71"}, 401, "license_invalid"},
		{"missing fields", map[string]any{"code": code}, 422, "validation_failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, request(t, "POST", apiBase+"/activate_license", a.headers(), tt.body), tt.status, tt.code)
		})
	}
}

func TestActivateLicense_BannedUserIsRefused(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	id := signUp(t, a, "kim", "vortex-lamp-71")
	expect(t, request(t, "POST", adminBase+"/apps/"+a.id+"/users/"+id+"/ban", nil, nil), 204, "")
	code := issueCode(t, a, map[string]any{"minutes": 10})
	expect(t, request(t, "POST", apiBase+"/activate_license", a.headers(), map[string]any{"code": code, "username": "kim", "password": "vortex-lamp-71"}), 403, "user_banned")
}

func TestApplicationCredentials_CheckedFirstOnEveryEndpoint(t *testing.T) {
	startServer(t, "", "")
	a, b := createApp(t, nil), createApp(t, nil)
	headers := []struct {
		name string
		h    map[string]string
	}{
		{"missing", map[string]string{}},
		{"unknown key", map[string]string{"x-api-key": "ak_unknown", "x-api-secret": a.secret}},
		{"wrong secret", map[string]string{"x-api-key": a.key, "x-api-secret": "as_wrong"}},
		{"key and secret of different applications", map[string]string{"x-api-key": a.key, "x-api-secret": b.secret}},
	}
	endpoints := []struct{ method, path string }{
		{"POST", "/sign_up"}, {"POST", "/sign_up_with_license_code"}, {"POST", "/auth/login"},
		{"GET", "/app_context"}, {"POST", "/activate_license"}, {"POST", "/auth/logout"}, {"GET", "/files/00000000-0000-0000-0000-000000000000"},
	}
	for _, h := range headers {
		for _, e := range endpoints {
			t.Run(h.name+" "+e.path, func(t *testing.T) {
				expect(t, request(t, e.method, apiBase+e.path, h.h, "{}"), 401, "invalid_application")
			})
		}
	}
	expect(t, request(t, "GET", apiBase+"/nowhere", a.headers(), nil), 404, "not_found")
	expect(t, request(t, "GET", apiBase+"/sign_up", a.headers(), nil), 405, "method_not_allowed")
}

func TestDeviceAuthentication_RegistersUpToTheLimit(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, map[string]any{"device_auth": true, "max_devices": 1})
	expect(t, request(t, "POST", apiBase+"/sign_up", a.headers(), map[string]any{"username": "lee", "password": "vortex-lamp-71"}), 422, "validation_failed")
	r := request(t, "POST", apiBase+"/sign_up", a.headers(), map[string]any{"username": "lee", "password": "vortex-lamp-71", "hardware_id": "hw-A"})
	expect(t, r, 201, "")
	code := issueCode(t, a, map[string]any{"minutes": 60})
	expect(t, request(t, "POST", apiBase+"/activate_license", a.headers(), map[string]any{"code": code, "username": "lee", "password": "vortex-lamp-71"}), 201, "")
	creds := map[string]any{"username": "lee", "password": "vortex-lamp-71"}

	expect(t, login(t, a, creds, ""), 401, "device_required")
	expect(t, login(t, a, creds, "hw-B"), 401, "device_mismatch")
	r = login(t, a, creds, "hw-A")
	expect(t, r, 200, "")
	token := r.str("session_token")
	// The session carries its device: no header needed.
	expect(t, request(t, "GET", apiBase+"/app_context", a.headers("Authorization", "Bearer "+token), nil), 200, "")
	legacy := a.headers("x-api-username", "lee", "x-api-password", "vortex-lamp-71")
	expect(t, request(t, "GET", apiBase+"/app_context", legacy, nil), 401, "device_required")
	legacy["x-hardware-id"] = "hw-B"
	expect(t, request(t, "GET", apiBase+"/app_context", legacy, nil), 401, "device_mismatch")
	legacy["x-hardware-id"] = "hw-A"
	expect(t, request(t, "GET", apiBase+"/app_context", legacy, nil), 200, "")

	// License sign-up registers the device; a reset frees the slot.
	lcode := issueCode(t, a, map[string]any{"minutes": 60})
	expect(t, request(t, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": lcode}), 422, "validation_failed")
	r = request(t, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": lcode, "hardware_id": "hw-C"})
	expect(t, r, 201, "")
	userID := r.str("id")
	expect(t, request(t, "GET", apiBase+"/app_context", a.headers("x-api-license-code", lcode, "x-hardware-id", "hw-D"), nil), 401, "device_mismatch")
	expect(t, request(t, "DELETE", adminBase+"/apps/"+a.id+"/users/"+userID+"/devices", nil, nil), 204, "")
	expect(t, request(t, "GET", apiBase+"/app_context", a.headers("x-api-license-code", lcode, "x-hardware-id", "hw-D"), nil), 200, "")
}

func TestLogout_EndsTheSessionAndIsIdempotent(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	activeUser(t, a, "mia", "vortex-lamp-71")
	token := login(t, a, map[string]any{"username": "mia", "password": "vortex-lamp-71"}, "").str("session_token")
	bearer := a.headers("Authorization", "Bearer "+token)
	expect(t, request(t, "GET", apiBase+"/app_context", bearer, nil), 200, "")
	expect(t, request(t, "POST", apiBase+"/auth/logout", bearer, nil), 204, "")
	expect(t, request(t, "GET", apiBase+"/app_context", bearer, nil), 401, "invalid_credentials")
	expect(t, request(t, "POST", apiBase+"/auth/logout", bearer, nil), 204, "")
	expect(t, request(t, "POST", apiBase+"/auth/logout", a.headers(), nil), 401, "authentication_required")
}

func TestBan_EndsAllSessionsAtOnce(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	id := activeUser(t, a, "ned", "vortex-lamp-71")
	token := login(t, a, map[string]any{"username": "ned", "password": "vortex-lamp-71"}, "").str("session_token")
	bearer := a.headers("Authorization", "Bearer "+token)
	expect(t, request(t, "GET", apiBase+"/app_context", bearer, nil), 200, "")
	expect(t, request(t, "POST", adminBase+"/apps/"+a.id+"/users/"+id+"/ban", nil, map[string]any{"reason": "abuse"}), 204, "")
	expect(t, request(t, "GET", apiBase+"/app_context", bearer, nil), 401, "invalid_credentials")
	expect(t, request(t, "GET", apiBase+"/app_context", a.headers("x-api-username", "ned", "x-api-password", "vortex-lamp-71"), nil), 403, "user_banned")
	expect(t, request(t, "POST", adminBase+"/apps/"+a.id+"/users/"+id+"/unban", nil, nil), 204, "")
	expect(t, request(t, "GET", apiBase+"/app_context", a.headers("x-api-username", "ned", "x-api-password", "vortex-lamp-71"), nil), 200, "")
}
