package clientapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/mongostore"
	"github.com/appaccess/appaccess/accessapi/openapi/openapitest"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// fixture is the client API over a service on a fresh database of the real
// store, with one application, served by an httptest server.
type fixture struct {
	t      *testing.T
	url    string
	svc    *access.Service
	app    *access.NewApp
	header http.Header
}

func newFixture(t *testing.T, settings access.AppSettings) *fixture {
	t.Helper()
	store := mongostore.New(storetest.Database(t))
	if err := store.EnsureIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	svc := access.NewService(store, access.Config{Argon2: access.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}})
	name := "test app"
	settings.Name = &name
	app, err := svc.CreateApp(context.Background(), settings)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(clientapi.NewHandler(svc, nil, nil))
	t.Cleanup(srv.Close)
	h := http.Header{}
	h.Set(clientapi.HeaderAPIKey, app.APIKey)
	h.Set(clientapi.HeaderAPISecret, app.APISecret)
	return &fixture{t: t, url: srv.URL, svc: svc, app: app, header: h}
}

// answer is a response with its body read.
type answer struct {
	status int
	header http.Header
	raw    string
}

func (a answer) problem(t *testing.T) wire.Problem {
	t.Helper()
	if ct := a.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q, want application/problem+json; body %q", ct, a.raw)
	}
	var p wire.Problem
	if err := json.Unmarshal([]byte(a.raw), &p); err != nil || p.Status != a.status || p.Code == "" || p.Detail == "" {
		t.Fatalf("problem %s (%v) of a %d answer", a.raw, err, a.status)
	}
	return p
}

// do sends a request with the application's credentials plus extra
// headers (name, value pairs).
func (f *fixture) do(method, path, body string, extra ...string) answer {
	f.t.Helper()
	req, err := http.NewRequest(method, f.url+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header = f.header.Clone()
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Set(extra[i], extra[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	checkAgainstDocument(f.t, req, res, raw)
	return answer{status: res.StatusCode, header: res.Header, raw: string(raw)}
}

// checkAgainstDocument fails the test when an answer differs from the
// client API's OpenAPI document.
func checkAgainstDocument(t *testing.T, req *http.Request, res *http.Response, raw []byte) {
	t.Helper()
	v, err := openapitest.Client()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(req, res, raw); err != nil {
		t.Error(err)
	}
}

func TestClientAPI_WrongMethodIs405WithAllowBeforeCredentials(t *testing.T) {
	t.Parallel()
	f := newFixture(t, access.AppSettings{})
	f.header = http.Header{} // no application credentials: routing comes first
	for _, tt := range []struct{ method, path, allow string }{
		{"GET", "/sign_up", "POST"},
		{"PUT", "/auth/login", "POST"},
		{"POST", "/app_context", "GET, HEAD"},
		{"DELETE", "/files/00000000-0000-0000-0000-000000000000", "GET, HEAD"},
	} {
		a := f.do(tt.method, tt.path, "")
		if a.status != http.StatusMethodNotAllowed || a.problem(t).Code != "method_not_allowed" || a.header.Get("Allow") != tt.allow {
			t.Errorf("%s %s: %d, Allow %q, %s", tt.method, tt.path, a.status, a.header.Get("Allow"), a.raw)
		}
	}
	for _, path := range []string{"/nothing", "/files/a/b", "/auth"} {
		if a := f.do("GET", path, ""); a.status != http.StatusNotFound || a.problem(t).Code != "not_found" {
			t.Errorf("GET %s: %d %s", path, a.status, a.raw)
		}
	}
	// A known route with the right method checks the credentials.
	if a := f.do("GET", "/app_context", ""); a.status != http.StatusUnauthorized || a.problem(t).Code != "invalid_application" {
		t.Errorf("app_context without credentials: %d %s", a.status, a.raw)
	}
}

func TestClientAPI_UnknownFieldsAreAccepted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, access.AppSettings{})
	a := f.do("POST", "/sign_up", `{"username": "ann", "password": "glass tulip 42", "client_version": "9.1", "locale": {"lang": "de"}}`)
	if a.status != http.StatusCreated {
		t.Fatalf("sign-up with unknown fields: %d %s", a.status, a.raw)
	}
	a = f.do("POST", "/auth/login", `{"credentials": {"username": "ann", "password": "glass tulip 42", "otp": "1"}, "remember": true}`)
	if a.status != http.StatusForbidden || a.problem(t).Code != "membership_inactive" { // past the body: the credentials were read
		t.Fatalf("login with unknown fields: %d %s", a.status, a.raw)
	}
}

func TestClientAPI_BodyThatIsNotAJSONObjectHasOneWording(t *testing.T) {
	t.Parallel()
	f := newFixture(t, access.AppSettings{})
	for _, body := range []string{"", "[]", "null", `"x"`, "{", `{"code": "x"} []`, "code=x"} {
		a := f.do("POST", "/sign_up_with_license_code", body)
		p := a.problem(t)
		if a.status != http.StatusUnprocessableEntity || len(p.Errors) != 1 || p.Errors[0] != (wire.FieldError{Field: "body", Message: "must be a JSON object"}) {
			t.Errorf("body %q: %d %s", body, a.status, a.raw)
		}
	}
	if a := f.do("POST", "/sign_up", `{"username": ["a"]}`); !strings.Contains(a.raw, `{"field":"username","message":"must be a string"}`) {
		t.Errorf("wrong type: %s", a.raw)
	}
	big := `{"code": "` + strings.Repeat("a", 70<<10) + `"}`
	if a := f.do("POST", "/sign_up_with_license_code", big); a.status != http.StatusRequestEntityTooLarge || !strings.Contains(a.problem(t).Detail, "64 KiB") {
		t.Errorf("70 KiB body: %d %s", a.status, a.raw)
	}
	// A body that sets a password may be larger, so that an over-long
	// password is told the password rule.
	huge := `{"username": "ann", "password": "` + strings.Repeat("a", 1<<20) + `"}`
	if a := f.do("POST", "/sign_up", huge); a.status != http.StatusUnprocessableEntity || !strings.Contains(a.raw, "at most 1024 bytes") {
		t.Errorf("1 MiB password: %d %s", a.status, a.raw[:min(len(a.raw), 300)])
	}
}

func TestClientAPI_CacheControlByKindOfAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t, access.AppSettings{AnonymousAccess: ptr(true)})
	file, err := f.svc.UploadFile(context.Background(), f.app.ID, access.FileUpload{Name: "notes.txt", MimeType: "text/plain"}, strings.NewReader("0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	signUp := f.do("POST", "/sign_up", `{"username": "bob", "password": "glass tulip 42"}`)
	for _, tt := range []struct {
		name  string
		a     answer
		cache string
	}{
		{"user data", signUp, "no-store"},
		{"a token", f.do("POST", "/auth/login", `{"credentials": {"username": "bob", "password": "wrong-one"}}`), "no-store"},
		{"application context", f.do("GET", "/app_context", ""), "no-store"},
		{"a problem", f.do("GET", "/nothing", ""), "no-store"},
		{"an unsatisfiable range", f.do("GET", "/files/"+file.ID, "", "Range", "bytes=10-"), "no-store"},
		{"file bytes", f.do("GET", "/files/"+file.ID, ""), "private, no-cache"},
		{"part of a file", f.do("GET", "/files/"+file.ID, "", "Range", "bytes=2-3"), "private, no-cache"},
	} {
		if got := tt.a.header.Get("Cache-Control"); got != tt.cache {
			t.Errorf("%s (%d): Cache-Control %q, want %q", tt.name, tt.a.status, got, tt.cache)
		}
	}
}

func TestClientAPI_UnsatisfiableRangeIsAProblem(t *testing.T) {
	t.Parallel()
	f := newFixture(t, access.AppSettings{AnonymousAccess: ptr(true)})
	file, err := f.svc.UploadFile(context.Background(), f.app.ID, access.FileUpload{Name: "notes.txt", MimeType: "text/plain"}, strings.NewReader("0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rng := range []string{"bytes=10-", "bytes=5-2", "bytes=0-1,4-5", "lines=1-2"} {
		a := f.do("GET", "/files/"+file.ID, "", "Range", rng)
		if a.status != http.StatusRequestedRangeNotSatisfiable || a.problem(t).Code != "range_not_satisfiable" ||
			a.header.Get("Content-Range") != "bytes */10" || a.header.Get("Content-Disposition") != "" {
			t.Errorf("Range %s: %d %v %q", rng, a.status, a.header, a.raw)
		}
	}
	if a := f.do("GET", "/files/"+file.ID, "", "Range", "bytes=2-3"); a.status != http.StatusPartialContent || a.raw != "23" {
		t.Errorf("satisfiable range: %d %q", a.status, a.raw)
	}
}

func ptr[T any](v T) *T { return &v }

// TestClientAPI_ServeHTTPLeavesThePatternThatServed: once ServeHTTP
// returns, r.Pattern is Pattern(r), for signed answers (an x-api-key) and
// unsigned ones, routes and 404 and 405 answers alike: the Caddy handler
// labels its metrics with it.
func TestClientAPI_ServeHTTPLeavesThePatternThatServed(t *testing.T) {
	t.Parallel()
	h := clientapi.NewHandler(access.NewService(storetest.SQLite(t), access.Config{}), nil, nil)
	for _, tt := range []struct{ method, path, key, pattern string }{
		{"GET", "/app_context", "ak_unknown", "GET /app_context"},
		{"GET", "/app_context", "", "GET /app_context"},
		{"GET", "/files/f1", "ak_unknown", "GET /files/{file}"},
		{"GET", "/openapi.json", "", "GET /openapi.json"},
		{"POST", "/app_context", "ak_unknown", ""},
		{"GET", "/nothing", "", ""},
	} {
		r := httptest.NewRequest(tt.method, tt.path, nil)
		if tt.key != "" {
			r.Header.Set(clientapi.HeaderAPIKey, tt.key)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if r.Pattern != tt.pattern || r.Pattern != h.Pattern(r) {
			t.Errorf("%s %s (key %q): r.Pattern %q, want %q (Pattern says %q)", tt.method, tt.path, tt.key, r.Pattern, tt.pattern, h.Pattern(r))
		}
	}
}
