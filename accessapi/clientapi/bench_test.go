package clientapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/clientapi/clientapitest"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// BenchmarkAppContext_BearerWarm is the warm token path through the client
// API handler, signing included, without the network: its allocations are
// most of what the path costs the collector.
func BenchmarkAppContext_BearerWarm(b *testing.B) {
	svc := access.NewService(storetest.SQLite(b), access.Config{Argon2: clientapitest.CheapArgon2})
	h := clientapi.NewHandler(svc, nil, nil)
	req := clientapitest.WarmTokenRequest(b, context.Background(), svc, h.ServeHTTP)
	w := &clientapitest.DiscardWriter{}
	h.ServeHTTP(w, req) // fills the caches
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		h.ServeHTTP(w, req)
		if w.Status != http.StatusOK {
			b.Fatalf("status %d", w.Status)
		}
	}
}
