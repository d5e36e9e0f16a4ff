package caddymodule

import (
	"strings"
	"testing"
)

// Regression tests of the security review's defects, through a real Caddy.

func TestSecurity_AnActivatedCodeIsNoLoginToThePasswordAccount(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	activeUser(t, a, "alice", "vortex-lamp-71")
	// activeUser activated a code; find it through a second activation.
	code := issueCode(t, a, map[string]any{"minutes": 60})
	expect(t, request(t, "POST", apiBase+"/activate_license", a.headers(),
		map[string]any{"code": code, "username": "alice", "password": "vortex-lamp-71"}), 201, "")

	expect(t, login(t, a, map[string]any{"code": code}, ""), 401, "invalid_credentials")
	expect(t, request(t, "GET", apiBase+"/app_context", a.headers("x-api-license-code", code), nil), 401, "invalid_credentials")
	// Her password still works.
	expect(t, login(t, a, map[string]any{"username": "alice", "password": "vortex-lamp-71"}, ""), 200, "")
}

func TestSecurity_HugeGrantsNeverTurnAMemberInactive(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	id := activeUser(t, a, "greta", "vortex-lamp-71")
	headers := a.headers("x-api-username", "greta", "x-api-password", "vortex-lamp-71")
	for _, minutes := range []int{153_722_867, 153_722_868, 200_000_000, 527_040_000} {
		r := request(t, "POST", adminBase+"/apps/"+a.id+"/users/"+id+"/grant", nil, map[string]any{"minutes": minutes})
		expect(t, r, 201, "")
		ctx := request(t, "GET", apiBase+"/app_context", headers, nil)
		expect(t, ctx, 200, "")
		m := ctx.obj("user")["membership"].(map[string]any)
		if m["is_active"] != true {
			t.Fatalf("after a grant of %d minutes the membership is %v", minutes, m)
		}
	}
	// About 1,967 years were granted in all.
	u := request(t, "GET", adminBase+"/apps/"+a.id+"/users/"+id, nil, nil)
	if exp, _ := u.obj("membership")["expires_at"].(string); !strings.HasPrefix(exp, "399") {
		t.Fatalf("expires_at %q, want about 1,967 years from now", exp)
	}
}

func TestSecurity_ATokenIsHeldToItsDevice(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, map[string]any{"device_auth": true, "max_devices": 2})
	r := request(t, "POST", apiBase+"/sign_up", a.headers(), map[string]any{"username": "dora", "password": "vortex-lamp-71", "hardware_id": "HW-AAA"})
	expect(t, r, 201, "")
	id := r.str("id")
	code := issueCode(t, a, map[string]any{"minutes": 60})
	expect(t, request(t, "POST", apiBase+"/activate_license", a.headers(),
		map[string]any{"code": code, "username": "dora", "password": "vortex-lamp-71"}), 201, "")
	token := login(t, a, map[string]any{"username": "dora", "password": "vortex-lamp-71"}, "HW-AAA").str("session_token")
	withToken := func(hw string) response {
		h := a.headers("Authorization", "Bearer "+token)
		if hw != "" {
			h["x-hardware-id"] = hw
		}
		return request(t, "GET", apiBase+"/app_context", h, nil)
	}
	expect(t, withToken("HW-AAA"), 200, "")
	expect(t, withToken("HW-ZZZ"), 401, "device_mismatch")
	expect(t, withToken(""), 200, "")
	expect(t, request(t, "PATCH", adminBase+"/apps/"+a.id, nil, map[string]any{"token_requires_hardware_id": true}), 200, "")
	expect(t, withToken(""), 401, "device_required")
	expect(t, withToken("HW-AAA"), 200, "")
	expect(t, request(t, "DELETE", adminBase+"/apps/"+a.id+"/users/"+id+"/devices", nil, nil), 204, "")
	expect(t, withToken("HW-AAA"), 401, "invalid_credentials")
}

func TestSecurity_AMegabytePasswordIs422(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	huge := strings.Repeat("p", 1<<20)
	r := request(t, "POST", apiBase+"/sign_up", a.headers(), map[string]any{"username": "megan", "password": huge})
	expect(t, r, 422, "validation_failed")
	if !strings.Contains(string(r.raw), "at most 1024 bytes") {
		t.Fatalf("the refusal does not name the length rule: %s", r.raw)
	}
	// A 64-character passphrase is fine.
	expect(t, request(t, "POST", apiBase+"/sign_up", a.headers(), map[string]any{"username": "megan", "password": strings.Repeat("passphrase-", 6)[:64]}), 201, "")
}
