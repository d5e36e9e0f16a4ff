package adminapi_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestSellerKeys_DeletingTheAppDeletesThemAndOneLeftBehindIsRevocable(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	app := s.createApp(nil)
	key := decode[wire.SellerKey](s, http.StatusCreated, "POST", "/apps/"+app.ID+"/keys",
		map[string]any{"name": "shop", "scopes": []string{access.ScopeAuditRead}})
	if a := s.do("DELETE", "/apps/"+app.ID, nil, nil); a.status != http.StatusNoContent {
		t.Fatalf("DELETE app: %d %s", a.status, a.raw)
	}
	if _, err := s.store.SellerKeyByHash(ctx, access.SecretHash(key.Key)); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("the key of the deleted application: %v, want ErrNotFound", err)
	}
	if _, err := s.svc.AuthenticateSellerKey(ctx, key.Key); access.CodeOf(err) != access.CodeAuthenticationRequired {
		t.Fatalf("authenticating with the key of the deleted application: %v", err)
	}

	// A key whose application is gone without it (a deletion cut short,
	// or one from before deletions took the keys) is refused and revoked.
	left := &access.SellerKey{ID: "k-left", AppID: app.ID, Name: "shop", Scopes: []string{access.ScopeAuditRead},
		SecretHash: access.SecretHash("sk_left"), CreatedAt: s.svc.Now()}
	if err := s.store.InsertSellerKey(ctx, left); err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.AuthenticateSellerKey(ctx, "sk_left"); access.CodeOf(err) != access.CodeAuthenticationRequired {
		t.Fatalf("authenticating with a key left behind: %v", err)
	}
	if a := s.do("DELETE", "/apps/"+app.ID+"/keys/"+left.ID, nil, nil); a.status != http.StatusNoContent {
		t.Fatalf("revoking a key left behind: %d %s", a.status, a.raw)
	}
	if _, err := s.store.SellerKeyByHash(ctx, left.SecretHash); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("the revoked key: %v, want ErrNotFound", err)
	}
	if a := s.do("DELETE", "/apps/"+app.ID+"/keys/"+left.ID, nil, nil); a.status != http.StatusNotFound {
		t.Fatalf("revoking it again: %d %s", a.status, a.raw)
	}
}
