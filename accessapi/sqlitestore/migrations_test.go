package sqlitestore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// TestMigrate_SellerKeysOfDeletedAppsAreDeleted: the migration that comes
// with DeleteApp taking the seller keys deletes the keys that applications
// deleted before left behind, and keeps the others.
func TestMigrate_SellerKeysOfDeletedAppsAreDeleted(t *testing.T) {
	s, upgrade := openAtVersion(t, t.TempDir(), 10)
	ctx := context.Background()
	at := time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	app := &access.App{ID: "kept", Name: "kept", APIKey: "ak", SecretHash: "h", MaxDevices: 1, SessionTTL: time.Hour, CreatedAt: at}
	if err := s.InsertApp(ctx, app); err != nil {
		t.Fatal(err)
	}
	for _, k := range []access.SellerKey{
		{ID: "k1", AppID: "kept", Name: "shop", Scopes: []string{access.ScopeAuditRead}, SecretHash: "s1", CreatedAt: at},
		{ID: "k2", AppID: "deleted", Name: "shop", Scopes: []string{access.ScopeAuditRead}, SecretHash: "s2", CreatedAt: at},
	} {
		if err := s.InsertSellerKey(ctx, &k); err != nil {
			t.Fatal(err)
		}
	}
	s = upgrade()
	if _, err := s.SellerKeyByHash(ctx, "s1"); err != nil {
		t.Fatalf("the key of an application that exists: %v", err)
	}
	if _, err := s.SellerKeyByHash(ctx, "s2"); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("the key of a deleted application: %v, want ErrNotFound", err)
	}
}
