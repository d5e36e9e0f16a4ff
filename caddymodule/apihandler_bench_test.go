package caddymodule

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/clientapi/clientapitest"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// BenchmarkAPIHandler_AppContextBearerWarm is the warm token path through
// the Caddy handler (metrics and cache observer included) without Caddy's
// server around it, signing included.
func BenchmarkAPIHandler_AppContextBearerWarm(b *testing.B) {
	ctx := context.Background()
	svc := access.NewService(storetest.SQLite(b), access.Config{
		Argon2:   clientapitest.CheapArgon2,
		Observer: newMetricsObserver(),
	})
	a := &App{}
	a.live.Store(&running{svc: svc, api: clientapi.NewHandler(svc, clientIP, nil)})
	h := &APIHandler{app: a, logger: zap.NewNop(), recorders: new(sync.Pool)}
	serve := func(w http.ResponseWriter, r *http.Request) {
		if err := h.ServeHTTP(w, r, nil); err != nil {
			b.Fatal(err)
		}
	}
	// Caddy's server resolves the client's address into a request variable.
	vars := map[string]any{caddyhttp.ClientIPVarKey: "192.0.2.1"}
	req := clientapitest.WarmTokenRequest(b, context.WithValue(ctx, caddyhttp.VarsCtxKey, vars), svc, serve)
	w := &clientapitest.DiscardWriter{}
	serve(w, req) // fills the caches
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.Reset()
		serve(w, req)
		if w.Status != http.StatusOK {
			b.Fatalf("status %d", w.Status)
		}
	}
}
