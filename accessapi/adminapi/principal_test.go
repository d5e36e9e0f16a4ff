package adminapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestAdminAPI_PrincipalIsTheCallerUnlessSetBefore(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		want Principal
	}{
		{"admin endpoint caller", context.Background(), Principal{Kind: PrincipalAdminEndpoint, Name: "192.0.2.7:4711"}},
		{"set by a front end", WithPrincipal(context.Background(), Principal{Kind: "seller_key", Name: "k1"}), Principal{Kind: "seller_key", Name: "k1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewHandler(DefaultPrefix, nil, nil)
			var got Principal
			var ok bool
			// A route of this handler sees the principal in its request.
			h.router.Handle("GET /app_access/whoami", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				got, ok = PrincipalFrom(r.Context())
			}))
			r := httptest.NewRequest("GET", "/app_access/whoami", nil).WithContext(tt.ctx)
			r.RemoteAddr = "192.0.2.7:4711"
			h.ServeHTTP(httptest.NewRecorder(), r)
			if !ok || got != tt.want {
				t.Fatalf("principal %+v (%v), want %+v", got, ok, tt.want)
			}
		})
	}
}
