package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/httpx"
)

func TestRouter_FallbackAnswersProblems(t *testing.T) {
	t.Parallel()
	rt := httpx.NewRouter(nil, "There is no such route.")
	rt.Handle("POST /items", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) }))
	rt.Handle("GET /items/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpx.WriteJSON(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
	}))
	for _, tt := range []struct {
		method, path string
		status       int
		allow, body  string
	}{
		{"POST", "/items", 201, "", ""},
		{"GET", "/items/7", 200, "", `{"id":"7"}`},
		{"HEAD", "/items/7", 200, "", ""},
		{"GET", "/items", 405, "POST", `"code":"method_not_allowed"`},
		{"DELETE", "/items/7", 405, "GET, HEAD", `"detail":"Use GET, HEAD for this route."`},
		{"GET", "/other", 404, "", `"detail":"There is no such route."`},
		{"GET", "/items/7/parts", 404, "", `"code":"not_found"`},
		// A path the mux would redirect to its clean form is not a route:
		// no redirect (an HTML body, a POST sent elsewhere), a problem.
		{"POST", "//items", 404, "", `"code":"not_found"`},
		{"GET", "/items//7", 404, "", `"code":"not_found"`},
		{"GET", "/other/../items/7", 404, "", `"code":"not_found"`},
		{"GET", "/./items/7", 404, "", `"code":"not_found"`},
		// An escaped slash is part of a segment, as the mux matches it.
		{"GET", "/items/..%2Fother", 200, "", `{"id":"../other"}`},
	} {
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		if rec.Code != tt.status || rec.Header().Get("Allow") != tt.allow || !strings.Contains(rec.Body.String(), tt.body) {
			t.Errorf("%s %s: %d Allow %q %s", tt.method, tt.path, rec.Code, rec.Header().Get("Allow"), rec.Body)
		}
		if tt.status >= 400 && rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s: content type %q", tt.method, tt.path, rec.Header().Get("Content-Type"))
		}
	}
}

// TestRouter_SetsThePatternItServed: once ServeHTTP returns, r.Pattern is
// what Pattern(r) says, for a route with and without wildcards and for
// the 404 and 405 answers, whatever r.Pattern was before.
func TestRouter_SetsThePatternItServed(t *testing.T) {
	t.Parallel()
	rt := httpx.NewRouter(nil, "There is no such route.")
	var pathValue string
	rt.Handle("POST /items", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) }))
	rt.Handle("GET /items/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { pathValue = r.PathValue("id") }))
	for _, tt := range []struct{ method, path, pattern string }{
		{"POST", "/items", "POST /items"},
		{"GET", "/items/7", "GET /items/{id}"},
		{"GET", "/items", ""},
		{"GET", "/other", ""},
	} {
		r := httptest.NewRequest(tt.method, tt.path, nil)
		want := rt.Pattern(r)
		r.Pattern = "GET /stale"
		rt.ServeHTTP(httptest.NewRecorder(), r)
		if r.Pattern != tt.pattern || r.Pattern != want {
			t.Errorf("%s %s: Pattern %q after serving, want %q (Pattern says %q)", tt.method, tt.path, r.Pattern, tt.pattern, want)
		}
	}
	if pathValue != "7" {
		t.Errorf("path value %q, want 7", pathValue)
	}
}
