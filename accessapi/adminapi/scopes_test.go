package adminapi

import (
	"net/http/httptest"
	"testing"
)

func TestSellerScopes_NameOnlyExistingRoutesBelowAnApplication(t *testing.T) {
	routes := (&Handler{}).routes()
	for pattern := range sellerScopes {
		if _, ok := routes[pattern]; !ok {
			t.Errorf("scoped pattern %q is not a management route", pattern)
		}
	}
}

func TestScopeMatcher_GivesScopeAndApplication(t *testing.T) {
	m := NewScopeMatcher("/admin/api")
	for _, tc := range []struct {
		method, path string
		scope, app   string
		ok           bool
	}{
		{"POST", "/admin/api/apps/A1/licenses", "licenses:create", "A1", true},
		{"GET", "/admin/api/apps/A1/licenses", "licenses:read", "A1", true},
		{"POST", "/admin/api/apps/B%2F2/users/u/ban", "users:write", "B/2", true},
		{"PUT", "/admin/api/apps/A1/variables/v", "content:write", "A1", true},
		{"GET", "/admin/api/apps", "", "", false},
		{"POST", "/admin/api/apps/A1/rotate_secret", "", "", false},
		{"POST", "/admin/api/apps/A1/keys", "", "", false},
		{"POST", "/admin/api/admins", "", "", false},
		{"POST", "/app_access/apps/A1/licenses", "", "", false},
	} {
		scope, app, ok := m.Match(httptest.NewRequest(tc.method, tc.path, nil))
		if scope != tc.scope || app != tc.app || ok != tc.ok {
			t.Errorf("%s %s = %q %q %v, want %q %q %v", tc.method, tc.path, scope, app, ok, tc.scope, tc.app, tc.ok)
		}
	}
}
