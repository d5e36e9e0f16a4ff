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

// TestMigrate_TOTPEnrolmentBegunBeforeIsPending: the migration that keeps
// a new TOTP secret apart from the enabled one moves an enrolment begun
// and not confirmed (a secret not enabled) to the pending column, and
// leaves an enabled secret in force.
func TestMigrate_TOTPEnrolmentBegunBeforeIsPending(t *testing.T) {
	s, upgrade := openAtVersion(t, t.TempDir(), 11)
	ctx := context.Background()
	for _, a := range []struct {
		name, secret string
		enabled      bool
	}{{"begun", "PENDINGSECRET", false}, {"enabled", "ENABLEDSECRET", true}, {"none", "", false}} {
		if _, err := s.exec(ctx, `INSERT INTO admins (username, password_hash, totp_secret, totp_enabled, created_at) VALUES (?, 'h', ?, ?, 0)`,
			a.name, a.secret, boolInt(a.enabled)); err != nil {
			t.Fatal(err)
		}
	}
	s = upgrade()
	tests := []struct {
		name, current, pending string
		enabled                bool
	}{
		{name: "begun", pending: "PENDINGSECRET"},
		{name: "enabled", current: "ENABLEDSECRET", enabled: true},
		{name: "none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := s.AdminByName(ctx, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if a.TOTPSecret != tc.current || a.TOTPEnabled != tc.enabled || a.PendingTOTPSecret != tc.pending {
				t.Fatalf("secret %q enabled %v pending %q, want %q %v %q", a.TOTPSecret, a.TOTPEnabled, a.PendingTOTPSecret,
					tc.current, tc.enabled, tc.pending)
			}
		})
	}
}
