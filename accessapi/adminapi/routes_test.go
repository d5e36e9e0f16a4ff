package adminapi_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminapi"
)

func TestAdminAPI_WrongMethodIs405WithAllow(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	app := s.createApp(nil)
	for _, tt := range []struct {
		method, path string
		allow        []string
	}{
		{"PUT", "/apps/" + app.ID + "/rotate_secret", []string{"POST"}},
		{"PUT", "/apps", []string{"GET", "HEAD", "POST"}},
		{"POST", "/health", []string{"GET", "HEAD"}},
		{"PATCH", "/apps/" + app.ID + "/licenses", []string{"GET", "HEAD", "POST"}},
		{"GET", "/apps/" + app.ID + "/licenses/lookup", nil}, // GET .../licenses/{license}: an unknown license
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			a := s.do(tt.method, tt.path, nil, nil)
			if tt.allow == nil {
				if a.status != http.StatusNotFound || a.problem(t).Code != "not_found" {
					t.Fatalf("status %d, body %s", a.status, a.raw)
				}
				return
			}
			if a.status != http.StatusMethodNotAllowed || a.problem(t).Code != string(access.CodeMethodNotAllowed) {
				t.Fatalf("status %d, body %s, want 405 method_not_allowed", a.status, a.raw)
			}
			allow := strings.Split(strings.ReplaceAll(a.header.Get("Allow"), " ", ""), ",")
			slices.Sort(allow)
			if !slices.Equal(allow, tt.allow) {
				t.Fatalf("Allow %q, want %q", a.header.Get("Allow"), tt.allow)
			}
		})
	}
}

func TestAdminAPI_UnknownRouteIs404Problem(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for _, path := range []string{"/nothing", "/apps/x/y/z", ""} {
		a := s.do("GET", path, nil, nil)
		if a.status != http.StatusNotFound || a.problem(t).Code != "not_found" {
			t.Fatalf("GET %q: status %d, body %s", path, a.status, a.raw)
		}
	}
}

func TestAdminAPI_PrefixIsAConstructorArgument(t *testing.T) {
	t.Parallel()
	svc := newTestServer(t).svc
	srv := httptest.NewServer(adminapi.NewHandler("/manage/v1", func() (*access.Service, error) { return svc, nil }, nil))
	t.Cleanup(srv.Close)
	for path, want := range map[string]int{"/manage/v1/health": 200, "/app_access/health": 404, "/health": 404} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, res.StatusCode, want)
		}
	}
}

func TestAdminAPI_ServiceNotRunningIs503(t *testing.T) {
	t.Parallel()
	down := func() (*access.Service, error) {
		return nil, access.Refusal(access.CodeUnavailable, "The app_access app is not running.")
	}
	rec := httptest.NewRecorder()
	adminapi.NewHandler(adminapi.DefaultPrefix, down, nil).ServeHTTP(rec, httptest.NewRequest("GET", "/app_access/apps", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"code":"unavailable"`) {
		t.Fatalf("status %d, body %s", rec.Code, rec.Body)
	}
}
