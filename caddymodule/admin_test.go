package caddymodule

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/storetest"
)

func TestAdminApps_SecretShownOnlyAtCreationAndRotation(t *testing.T) {
	startServer(t, "", "")
	r := request(t, "POST", adminBase+"/apps", nil, map[string]any{"name": "Shop", "device_auth": true, "max_devices": 3, "session_ttl": "2h"})
	expect(t, r, 201, "")
	id, secret := r.str("id"), r.str("api_secret")
	if secret == "" || r.str("api_key") == "" || r.body["max_devices"] != 3.0 || r.str("session_ttl") != "2h" || r.body["device_auth"] != true {
		t.Fatalf("created %s", r.raw)
	}
	for _, url := range []string{adminBase + "/apps", adminBase + "/apps/" + id} {
		if r := request(t, "GET", url, nil, nil); r.status != 200 || strings.Contains(string(r.raw), "api_secret") || strings.Contains(string(r.raw), secret) {
			t.Fatalf("GET %s leaks the secret or failed: %s", url, r.raw)
		}
	}
	r = request(t, "PATCH", adminBase+"/apps/"+id, nil, map[string]any{"anonymous_access": true, "name": "Shop 2"})
	expect(t, r, 200, "")
	if r.body["anonymous_access"] != true || r.str("name") != "Shop 2" || r.body["device_auth"] != true {
		t.Fatalf("patched %s", r.raw)
	}
	a := app{id: id, key: r.str("api_key"), secret: secret}
	// The change holds for the next request: anonymous access is on.
	expect(t, request(t, "GET", apiBase+"/app_context", a.headers(), nil), 200, "")

	r = request(t, "POST", adminBase+"/apps/"+id+"/rotate_secret", nil, nil)
	expect(t, r, 200, "")
	expect(t, request(t, "GET", apiBase+"/app_context", a.headers(), nil), 401, "invalid_application")
	a.secret = r.str("api_secret")
	expect(t, request(t, "GET", apiBase+"/app_context", a.headers(), nil), 200, "")

	for _, tt := range []struct {
		name, method, path string
		body               any
		status             int
		code               string
	}{
		{"create without name", "POST", "/apps", map[string]any{}, 422, "validation_failed"},
		{"bad session ttl", "POST", "/apps", map[string]any{"name": "x", "session_ttl": "forever"}, 422, "validation_failed"},
		{"zero devices", "PATCH", "/apps/" + id, map[string]any{"max_devices": 0}, 422, "validation_failed"},
		{"unknown app", "GET", "/apps/00000000-0000-0000-0000-000000000000", nil, 404, "not_found"},
		{"unknown route", "GET", "/nothing", nil, 404, "not_found"},
		{"wrong method", "PUT", "/apps/" + id + "/rotate_secret", nil, 405, "method_not_allowed"},
		{"misspelt setting", "PATCH", "/apps/" + id, map[string]any{"anonymus_access": true}, 422, "validation_failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, request(t, tt.method, adminBase+tt.path, nil, tt.body), tt.status, tt.code)
		})
	}
	expect(t, request(t, "DELETE", adminBase+"/apps/"+id, nil, nil), 204, "")
	expect(t, request(t, "GET", apiBase+"/app_context", a.headers(), nil), 401, "invalid_application")
	expect(t, request(t, "GET", adminBase+"/apps/"+id, nil, nil), 404, "not_found")
}

func TestAdminLicenses_IssueListFindAndDelete(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	base := adminBase + "/apps/" + a.id + "/licenses"
	r := request(t, "POST", base, nil, map[string]any{"count": 25, "minutes": 60, "note": "batch 1"})
	expect(t, r, 201, "")
	issued := r.body["licenses"].([]any)
	if len(issued) != 25 {
		t.Fatalf("issued %d", len(issued))
	}
	first := issued[0].(map[string]any)
	code := first["code"].(string)
	if len(code) != 29 || strings.Count(code, "-") != 4 {
		t.Fatalf("code %q is not five groups of five", code)
	}
	imported := request(t, "POST", base, nil, map[string]any{"codes": []string{"SHOP-7KX2M-9QWPT-4HZRB-8VNCE", "SHOP-3JD8F-M2XQA-7RTWB-5KPLN"}, "grants_lifetime_access": true})
	expect(t, imported, 201, "")
	expect(t, request(t, "POST", base, nil, map[string]any{"codes": []string{"shop 7kx2m 9qwpt 4hzrb 8vnce"}, "minutes": 5}), 409, "conflict")
	// An imported code must be hard to guess.
	expect(t, request(t, "POST", base, nil, map[string]any{"codes": []string{"SHOP-0001"}, "minutes": 5}), 422, "validation_failed")

	// Use one code.
	expect(t, request(t, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": code}), 201, "")

	// Pagination visits every license once.
	seen := map[string]bool{}
	after := ""
	for pages := 0; ; pages++ {
		r := request(t, "GET", fmt.Sprintf("%s?limit=7&after=%s", base, after), nil, nil)
		expect(t, r, 200, "")
		for _, l := range r.body["licenses"].([]any) {
			lm := l.(map[string]any)
			if _, has := lm["code"]; has {
				t.Fatalf("listing shows a full code: %v", lm)
			}
			id := lm["id"].(string)
			if seen[id] {
				t.Fatalf("license %s listed twice", id)
			}
			seen[id] = true
		}
		if r.body["next"] == nil {
			break
		}
		after = r.body["next"].(string)
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
	}
	if len(seen) != 27 {
		t.Fatalf("pagination visited %d licenses, want 27", len(seen))
	}
	used := request(t, "GET", base+"?used=true", nil, nil)
	if ls := used.body["licenses"].([]any); len(ls) != 1 || ls[0].(map[string]any)["used_by"] == nil || ls[0].(map[string]any)["used_at"] == nil {
		t.Fatalf("used licenses %s", used.raw)
	}
	if ls := request(t, "GET", base+"?used=false&limit=1000", nil, nil).body["licenses"].([]any); len(ls) != 26 {
		t.Fatalf("%d unused licenses, want 26", len(ls))
	}
	byCode := request(t, "POST", base+"/lookup", nil, map[string]any{"code": strings.ToLower(code)})
	expect(t, byCode, 200, "")
	if byCode.str("id") != first["id"] || byCode.str("code_hint") != code[len(code)-4:] {
		t.Fatalf("found by code %s", byCode.raw)
	}
	expect(t, request(t, "GET", base+"/"+first["id"].(string), nil, nil), 200, "")
	expect(t, request(t, "DELETE", base+"/"+first["id"].(string), nil, nil), 409, "conflict")
	unusedID := issued[1].(map[string]any)["id"].(string)
	expect(t, request(t, "DELETE", base+"/"+unusedID, nil, nil), 204, "")
	expect(t, request(t, "GET", base+"/"+unusedID, nil, nil), 404, "not_found")

	for _, tt := range []struct {
		name string
		body map[string]any
	}{
		{"no minutes", map[string]any{"count": 1}},
		{"grant and revoke", map[string]any{"grants_lifetime_access": true, "revokes_lifetime_access": true}},
		{"lifetime with minutes", map[string]any{"grants_lifetime_access": true, "minutes": 5}},
		{"count over 10000", map[string]any{"count": 10001, "minutes": 5}},
		{"negative minutes", map[string]any{"minutes": -5}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, request(t, "POST", base, nil, tt.body), 422, "validation_failed")
		})
	}
	expect(t, request(t, "GET", base+"?used=maybe", nil, nil), 422, "validation_failed")
}

func TestAdminUsers_ShowGrantResetAndDelete(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, map[string]any{"device_auth": true, "max_devices": 2})
	r := request(t, "POST", apiBase+"/sign_up", a.headers(), map[string]any{"username": "sam", "password": "vortex-lamp-71", "hardware_id": "hw-1"})
	expect(t, r, 201, "")
	id := r.str("id")
	users := adminBase + "/apps/" + a.id + "/users/"

	g := request(t, "POST", users+id+"/grant", nil, map[string]any{"minutes": 30, "note": "support"})
	expect(t, g, 201, "")
	if g.str("type") != "grant" || g.body["minutes"] != 30.0 || g.body["license_id"] != nil {
		t.Fatalf("grant %s", g.raw)
	}
	expect(t, request(t, "POST", users+id+"/grant", nil, map[string]any{}), 422, "validation_failed")
	expect(t, login(t, a, map[string]any{"username": "sam", "password": "vortex-lamp-71"}, "hw-1"), 200, "")

	d := request(t, "GET", users+id, nil, nil)
	expect(t, d, 200, "")
	m := d.obj("membership")
	devices := d.body["devices"].([]any)
	if d.str("username") != "sam" || m["is_active"] != true || len(devices) != 1 || devices[0].(map[string]any)["hardware_id"] != "hw-1" ||
		d.body["banned"] != false || len(d.body["activations"].([]any)) != 1 || d.str("created_at") == "" {
		t.Fatalf("user detail %s", d.raw)
	}
	list := request(t, "GET", adminBase+"/apps/"+a.id+"/users?username=SAM", nil, nil)
	if us := list.body["users"].([]any); len(us) != 1 || us[0].(map[string]any)["id"] != id {
		t.Fatalf("user search %s", list.raw)
	}
	expect(t, request(t, "DELETE", users+id+"/sessions", nil, nil), 204, "")
	expect(t, request(t, "DELETE", users+id+"/devices", nil, nil), 204, "")
	if d := request(t, "GET", users+id, nil, nil); len(d.body["devices"].([]any)) != 0 {
		t.Fatalf("devices after reset %s", d.raw)
	}
	expect(t, request(t, "DELETE", users+id, nil, nil), 204, "")
	expect(t, request(t, "GET", users+id, nil, nil), 404, "not_found")
	expect(t, login(t, a, map[string]any{"username": "sam", "password": "vortex-lamp-71"}, "hw-1"), 401, "invalid_credentials")
	// The name is free again.
	expect(t, request(t, "POST", apiBase+"/sign_up", a.headers(), map[string]any{"username": "sam", "password": "vortex-lamp-71", "hardware_id": "hw-1"}), 201, "")
	for _, p := range []string{"", "/ban", "/unban", "/grant"} {
		method := map[string]string{"": "GET", "/ban": "POST", "/unban": "POST", "/grant": "POST"}[p]
		var body any
		if p == "/grant" { // the management API refuses fields a route does not have
			body = map[string]any{"minutes": 1}
		}
		expect(t, request(t, method, users+"00000000-0000-0000-0000-000000000000"+p, nil, body), 404, "not_found")
	}
}

func TestAdminUsers_PaginationVisitsEveryUserOnce(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	for i := 0; i < 5; i++ {
		code := issueCode(t, a, map[string]any{"minutes": 1})
		expect(t, request(t, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": code}), 201, "")
	}
	seen, after := map[string]bool{}, ""
	for i := 0; i < 10; i++ {
		r := request(t, "GET", adminBase+"/apps/"+a.id+"/users?limit=2&after="+after, nil, nil)
		for _, u := range r.body["users"].([]any) {
			id := u.(map[string]any)["id"].(string)
			if seen[id] {
				t.Fatalf("user %s listed twice", id)
			}
			seen[id] = true
		}
		if r.body["next"] == nil {
			break
		}
		after = r.body["next"].(string)
	}
	if len(seen) != 5 {
		t.Fatalf("visited %d users, want 5", len(seen))
	}
}

func TestAdminVariablesAndFiles_ReachTheClients(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	base := adminBase + "/apps/" + a.id
	activeUser(t, a, "tia", "vortex-lamp-71")
	user := a.headers("x-api-username", "tia", "x-api-password", "vortex-lamp-71")

	expect(t, request(t, "PUT", base+"/variables/version", nil, map[string]any{"value": "1.2.3"}), 200, "")
	expect(t, request(t, "PUT", base+"/variables/version", nil, map[string]any{}), 422, "validation_failed")
	if vs := request(t, "GET", base+"/variables", nil, nil).body["variables"].([]any); len(vs) != 1 {
		t.Fatalf("variables %v", vs)
	}

	plain := strings.Repeat("plain text ", 10000)               // 110 kB: two GridFS chunks
	secret := strings.Repeat("0123456789abcdef", 9000) + "tail" // 144 kB: three encryption chunks
	up := func(name, query, body string) string {
		r := request(t, "POST", base+"/files?name="+name+query, map[string]string{"Content-Type": "text/plain"}, body)
		expect(t, r, 201, "")
		if r.body["size"] != float64(len(body)) || len(r.str("sha256")) != 64 || r.str("mime_type") != "text/plain" {
			t.Fatalf("uploaded %s", r.raw)
		}
		return r.str("id")
	}
	plainID := up("readme.txt", "", plain)
	secretID := up("secret.txt", "&encrypted=true", secret)

	ctx := request(t, "GET", apiBase+"/app_context", user, nil)
	files := ctx.obj("application")["files"].([]any)
	if len(files) != 2 || files[1].(map[string]any)["is_encrypted"] != true || files[0].(map[string]any)["is_encrypted"] != false {
		t.Fatalf("files in context %v", files)
	}
	for _, tt := range []struct {
		name, id, rng, want string
		status              int
	}{
		{"whole plain file", plainID, "", plain, 200},
		{"whole encrypted file", secretID, "", secret, 200},
		{"range across encryption chunks", secretID, "bytes=65530-131080", secret[65530:131081], 206},
		{"suffix range", secretID, "bytes=-4", "tail", 206},
		{"range of a plain file", plainID, "bytes=100-199", plain[100:200], 206},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := a.headers("x-api-username", "tia", "x-api-password", "vortex-lamp-71")
			if tt.rng != "" {
				h["Range"] = tt.rng
			}
			r := request(t, "GET", apiBase+"/files/"+tt.id, h, nil)
			if r.status != tt.status || string(r.raw) != tt.want || r.header.Get("ETag") == "" || r.header.Get("Content-Type") != "text/plain" {
				t.Fatalf("status %d, %d bytes, etag %q, type %q", r.status, len(r.raw), r.header.Get("ETag"), r.header.Get("Content-Type"))
			}
		})
	}
	etag := request(t, "GET", apiBase+"/files/"+plainID, user, nil).header.Get("ETag")
	h := a.headers("x-api-username", "tia", "x-api-password", "vortex-lamp-71", "If-None-Match", etag)
	if r := request(t, "GET", apiBase+"/files/"+plainID, h, nil); r.status != 304 {
		t.Fatalf("conditional GET answered %d", r.status)
	}
	h = a.headers("x-api-username", "tia", "x-api-password", "vortex-lamp-71", "Range", "bytes=999999999-")
	if r := request(t, "GET", apiBase+"/files/"+plainID, h, nil); r.status != 416 {
		t.Fatalf("unsatisfiable range answered %d", r.status)
	}
	expect(t, request(t, "GET", apiBase+"/files/"+plainID, a.headers(), nil), 401, "authentication_required")
	other := createApp(t, nil)
	activeUser(t, other, "uma", "vortex-lamp-71")
	expect(t, request(t, "GET", apiBase+"/files/"+plainID, other.headers("x-api-username", "uma", "x-api-password", "vortex-lamp-71"), nil), 404, "not_found")

	expect(t, request(t, "DELETE", base+"/files/"+plainID, nil, nil), 204, "")
	expect(t, request(t, "GET", apiBase+"/files/"+plainID, user, nil), 404, "not_found")
	expect(t, request(t, "DELETE", base+"/variables/version", nil, nil), 204, "")
	expect(t, request(t, "DELETE", base+"/variables/version", nil, nil), 404, "not_found")
}

func TestAdminListings_CountsPrefixAndActivations(t *testing.T) {
	startServer(t, "", "")
	a := createApp(t, nil)
	for _, name := range []string{"alba", "Alberto", "bruno"} {
		signUp(t, a, name, "vortex-lamp-71")
	}
	id := activeUser(t, a, "alfred", "vortex-lamp-71")
	for range 3 {
		expect(t, request(t, "POST", adminBase+"/apps/"+a.id+"/users/"+id+"/grant", nil, map[string]any{"minutes": 5}), 201, "")
	}
	issueCode(t, a, map[string]any{"minutes": 60})

	r := request(t, "GET", adminBase+"/apps/"+a.id, nil, nil)
	expect(t, r, 200, "")
	want := map[string]any{"licenses": 2.0, "licenses_used": 1.0, "licenses_unused": 1.0, "users": 4.0, "active_members": 1.0}
	if fmt.Sprint(r.obj("counts")) != fmt.Sprint(want) {
		t.Fatalf("counts %v, want %v", r.obj("counts"), want)
	}

	// The same sign-ups and the activation, on today's line of the activity.
	act := request(t, "GET", adminBase+"/apps/"+a.id+"/activity?days=3", nil, nil)
	expect(t, act, 200, "")
	days := act.body["days"].([]any)
	today := days[len(days)-1].(map[string]any)
	if len(days) != 3 || today["day"] != time.Now().UTC().Format(time.DateOnly) || today["sign_ups"] != 4.0 || today["activations"] != 1.0 {
		t.Fatalf("activity %v, want 3 days ending today with 4 sign-ups and 1 activation", days)
	}
	for _, q := range []string{"days=0", "days=367", "days=two"} {
		expect(t, request(t, "GET", adminBase+"/apps/"+a.id+"/activity?"+q, nil, nil), 422, "validation_failed")
	}

	var names []string
	after := ""
	for {
		p := request(t, "GET", fmt.Sprintf("%s/apps/%s/users?prefix=AL&limit=2&after=%s", adminBase, a.id, after), nil, nil)
		expect(t, p, 200, "")
		for _, u := range p.body["users"].([]any) {
			names = append(names, u.(map[string]any)["username"].(string))
		}
		next, _ := p.body["next"].(string)
		if next == "" {
			break
		}
		after = next
	}
	if fmt.Sprint(names) != "[alba Alberto alfred]" {
		t.Fatalf("users by prefix AL: %v", names)
	}

	var seen int
	after = ""
	for {
		p := request(t, "GET", fmt.Sprintf("%s/apps/%s/users/%s/activations?limit=3&after=%s", adminBase, a.id, id, after), nil, nil)
		expect(t, p, 200, "")
		seen += len(p.body["activations"].([]any))
		next, _ := p.body["next"].(string)
		if next == "" {
			break
		}
		after = next
	}
	if seen != 4 {
		t.Fatalf("%d activations listed, want 4", seen)
	}
}

func TestBackup_WorksThroughTheServersStoreDecorators(t *testing.T) {
	startServer(t, "", "")
	createApp(t, nil)
	path := filepath.Join(t.TempDir(), "copy.db")
	r := request(t, "POST", adminBase+"/backup", nil, map[string]any{"path": path})
	if os.Getenv(storetest.EnvURI) != "" {
		expect(t, r, 409, "conflict") // MongoDB: mongodump
		return
	}
	expect(t, r, 201, "")
	if info, err := os.Stat(path); err != nil || info.Size() == 0 {
		t.Fatalf("backup file: %v %v", info, err)
	}
}
