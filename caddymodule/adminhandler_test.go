package caddymodule

import (
	"fmt"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddytest"

	"github.com/appaccess/appaccess/accessapi/storetest"
)

// startDashboardServer serves the dashboard under /admin/ and the client
// API elsewhere on one site, as the top-level Caddyfile does.
func startDashboardServer(t *testing.T) {
	t.Helper()
	tester := newTester(t)
	tester.InitServer(fmt.Sprintf(`{
	%s
	app_access {
		mongodb_uri "%s"
		database %s
	}
}

:%d {
	app_access_admin /admin/*
	app_access_api
}
`, globalOptions(), storetest.URI(t), storetest.DatabaseName(t), apiPort), "caddyfile")
}

func TestAdminHandler_ServesTheManagementAPIForSellerKeysBesideTheClientAPI(t *testing.T) {
	startDashboardServer(t)
	r := request(t, "POST", adminBase+"/apps", nil, map[string]any{"name": "Shop"})
	expect(t, r, 201, "")
	appID := r.str("id")
	r = request(t, "POST", adminBase+"/apps/"+appID+"/keys", nil, map[string]any{"name": "webshop", "scopes": []string{"licenses:create"}})
	expect(t, r, 201, "")
	key := r.str("key")
	bearer := map[string]string{"Authorization": "Bearer " + key}

	r = request(t, "POST", apiBase+"/admin/api/apps/"+appID+"/licenses", bearer, map[string]any{"count": 2, "minutes": 60})
	expect(t, r, 201, "")
	expect(t, request(t, "GET", apiBase+"/admin/api/apps/"+appID+"/licenses", bearer, nil), 403, "forbidden")
	expect(t, request(t, "GET", apiBase+"/admin/api/apps/"+appID+"/licenses", nil, nil), 401, "authentication_required")
	// The client API still answers beside it.
	expect(t, request(t, "GET", apiBase+"/app_context", nil, nil), 401, "")

	page := request(t, "GET", apiBase+"/admin/signin", nil, nil)
	if page.status != 200 || !strings.Contains(page.header.Get("Content-Security-Policy"), "default-src 'none'") || !strings.Contains(string(page.raw), `name="password"`) {
		t.Fatalf("sign-in page: %d %v\n%s", page.status, page.header, page.raw)
	}
}

func TestCaddyfile_AdaptsTheAdminDirective(t *testing.T) {
	caddytest.AssertAdapt(t, `:8080 {
	app_access_api
	app_access_admin /admin/* {
		secure_cookies
		trusted_origins https://admin.example.com
	}
}`, "caddyfile", `{
	"apps": {
		"http": {
			"servers": {
				"srv0": {
					"listen": [
						":8080"
					],
					"routes": [
						{
							"match": [
								{
									"path": [
										"/admin/*"
									]
								}
							],
							"handle": [
								{
									"handler": "app_access_admin",
									"secure_cookies": true,
									"trusted_origins": [
										"https://admin.example.com"
									]
								}
							]
						},
						{
							"handle": [
								{
									"handler": "app_access_api"
								}
							]
						}
					]
				}
			}
		}
	}
}`)
}
