package caddymodule

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// discardWriter is a ResponseWriter that keeps nothing but the status.
type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(s int)           { w.status = s }

// BenchmarkAPIHandler_AppContextBearerWarm is the warm token path through
// the Caddy handler (metrics and cache observer included) without Caddy's
// server around it, signing included.
func BenchmarkAPIHandler_AppContextBearerWarm(b *testing.B) {
	ctx := context.Background()
	svc := access.NewService(storetest.SQLite(b), access.Config{
		Argon2:   access.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1},
		Observer: newMetricsObserver(),
	})
	name := "bench"
	app, err := svc.CreateApp(ctx, access.AppSettings{Name: &name})
	if err != nil {
		b.Fatal(err)
	}
	codes, err := svc.CreateLicenses(ctx, app.ID, access.LicenseRequest{Count: 1, Grant: access.Grant{GrantsLifetimeAccess: true}})
	if err != nil {
		b.Fatal(err)
	}
	a := &App{}
	a.live.Store(&running{svc: svc, api: clientapi.NewHandler(svc, clientIP, nil)})
	h := &APIHandler{app: a, logger: zap.NewNop(), recorders: new(sync.Pool)}
	serve := func(w http.ResponseWriter, r *http.Request) {
		if err := h.ServeHTTP(w, r, nil); err != nil {
			b.Fatal(err)
		}
	}
	post := func(path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header.Set(clientapi.HeaderAPIKey, app.APIKey)
		req.Header.Set(clientapi.HeaderAPISecret, app.APISecret)
		rec := httptest.NewRecorder()
		serve(rec, req)
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
	// Caddy's server resolves the client's address into a request variable.
	vars := map[string]any{caddyhttp.ClientIPVarKey: "192.0.2.1"}
	req := httptest.NewRequestWithContext(context.WithValue(ctx, caddyhttp.VarsCtxKey, vars), "GET", "/app_context", nil)
	req.Header.Set(clientapi.HeaderAPIKey, app.APIKey)
	req.Header.Set(clientapi.HeaderAPISecret, app.APISecret)
	req.Header.Set("Authorization", "Bearer "+sess.Token)
	req.Header.Set(clientapi.HeaderNonce, "bench-nonce-0001")
	w := &discardWriter{h: http.Header{}}
	serve(w, req) // fills the caches
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		clear(w.h)
		serve(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}
