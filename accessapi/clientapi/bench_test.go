package clientapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// discardWriter is a ResponseWriter that keeps nothing but the status: the
// benchmark measures the handler, not a recorder.
type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(s int)           { w.status = s }

// BenchmarkAppContext_BearerWarm is the warm token path through the client
// API handler, signing included, without the network: its allocations are
// most of what the path costs the collector.
func BenchmarkAppContext_BearerWarm(b *testing.B) {
	ctx := context.Background()
	svc := access.NewService(storetest.SQLite(b), access.Config{Argon2: access.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}})
	name := "bench"
	app, err := svc.CreateApp(ctx, access.AppSettings{Name: &name})
	if err != nil {
		b.Fatal(err)
	}
	codes, err := svc.CreateLicenses(ctx, app.ID, access.LicenseRequest{Count: 1, Grant: access.Grant{GrantsLifetimeAccess: true}})
	if err != nil {
		b.Fatal(err)
	}
	h := clientapi.NewHandler(svc, nil, nil)
	post := func(path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header.Set(clientapi.HeaderAPIKey, app.APIKey)
		req.Header.Set(clientapi.HeaderAPISecret, app.APISecret)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code/100 != 2 {
			b.Fatalf("POST %s: %d %s", path, rec.Code, rec.Body)
		}
		return rec
	}
	post("/sign_up", `{"username":"ann","password":"vortex-lamp-71"}`)
	post("/activate_license", `{"username":"ann","password":"vortex-lamp-71","code":"`+codes[0].Code+`"}`)
	var sess struct {
		Token string `json:"session_token"`
	}
	if err := json.Unmarshal(post("/auth/login", `{"credentials":{"username":"ann","password":"vortex-lamp-71"}}`).Body.Bytes(), &sess); err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/app_context", nil)
	req.Header.Set(clientapi.HeaderAPIKey, app.APIKey)
	req.Header.Set(clientapi.HeaderAPISecret, app.APISecret)
	req.Header.Set("Authorization", "Bearer "+sess.Token)
	req.Header.Set(clientapi.HeaderNonce, "bench-nonce-0001")
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, req) // fills the caches
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}
