package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

func testAdmins(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := &access.Admin{Username: "alice", PasswordHash: "h1", CreatedAt: epoch}
	must(t, s.InsertAdmin(ctx, a))
	must(t, s.InsertAdmin(ctx, &access.Admin{Username: "bob", PasswordHash: "h2", CreatedAt: epoch}))
	if err := s.InsertAdmin(ctx, &access.Admin{Username: "alice", PasswordHash: "x", CreatedAt: epoch}); !errors.Is(err, access.ErrDuplicate) {
		t.Fatalf("second alice: %v, want ErrDuplicate", err)
	}
	// The enabled and the pending secret are kept apart: a pending one
	// without an enabled one, then both.
	for _, want := range []access.Admin{
		{TOTPSecret: "", TOTPEnabled: false, PendingTOTPSecret: "sealed1:pending"},
		{TOTPSecret: "sealed1:enabled", TOTPEnabled: true, PendingTOTPSecret: "sealed1:pending"},
		{TOTPSecret: "sealed1:enabled", TOTPEnabled: true, PendingTOTPSecret: ""},
	} {
		a.TOTPSecret, a.TOTPEnabled, a.PendingTOTPSecret = want.TOTPSecret, want.TOTPEnabled, want.PendingTOTPSecret
		must(t, s.SetAdminTOTP(ctx, a))
		got, err := s.AdminByName(ctx, "alice")
		must(t, err)
		if got.PasswordHash != "h1" || got.TOTPSecret != want.TOTPSecret || got.TOTPEnabled != want.TOTPEnabled ||
			got.PendingTOTPSecret != want.PendingTOTPSecret || !got.CreatedAt.Equal(epoch) {
			t.Fatalf("alice = %+v, want the secrets of %+v", got, want)
		}
	}
	all, err := s.Admins(ctx)
	must(t, err)
	if len(all) != 2 || all[0].Username != "alice" || all[1].Username != "bob" || all[0].TOTPSecret != "sealed1:enabled" {
		t.Fatalf("Admins = %+v", all)
	}
	must(t, s.InsertTOTPStep(ctx, "alice", 42, epoch))
	if err := s.InsertTOTPStep(ctx, "alice", 42, epoch); !errors.Is(err, access.ErrDuplicate) {
		t.Fatalf("replayed step: %v, want ErrDuplicate", err)
	}
	must(t, s.InsertTOTPStep(ctx, "bob", 42, epoch))
	must(t, s.DeleteAdmin(ctx, "alice"))
	if _, err := s.AdminByName(ctx, "alice"); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("deleted alice: %v, want ErrNotFound", err)
	}
	if err := s.SetAdminTOTP(ctx, a); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("the TOTP of deleted alice: %v, want ErrNotFound", err)
	}
}

// testAdminFactorWrites: a TOTP write touches the TOTP fields alone, so it
// never restores a password read before a reset; a password write is
// conditional on the hash it replaces; neither reaches an administrator
// deleted and created again under the name since it was read.
func testAdminFactorWrites(t *testing.T, s access.Store) {
	ctx := context.Background()
	read := &access.Admin{Username: "carol", PasswordHash: "h-old", CreatedAt: epoch}
	must(t, s.InsertAdmin(ctx, read))
	current := func() *access.Admin {
		t.Helper()
		a, err := s.AdminByName(ctx, "carol")
		must(t, err)
		return a
	}
	must(t, s.SetAdminPassword(ctx, "carol", epoch, "h-old", "h-new"))
	// A TOTP change computed from the record read before the reset.
	read.TOTPSecret, read.TOTPEnabled = "sealed1:enabled", true
	must(t, s.SetAdminTOTP(ctx, read))
	if a := current(); a.PasswordHash != "h-new" || a.TOTPSecret != "sealed1:enabled" || !a.TOTPEnabled {
		t.Fatalf("after a reset and a TOTP write from an older read: %+v", a)
	}
	if err := s.SetAdminPassword(ctx, "carol", epoch, "h-old", "h-stale"); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("a reset from a stale hash: %v, want ErrNotFound", err)
	}
	if a := current(); a.PasswordHash != "h-new" {
		t.Fatalf("a stale reset wrote %q", a.PasswordHash)
	}
	// Deleted and created again: writes computed for the first carol
	// touch nothing of the second.
	must(t, s.DeleteAdmin(ctx, "carol"))
	later := epoch.Add(time.Hour)
	must(t, s.InsertAdmin(ctx, &access.Admin{Username: "carol", PasswordHash: "h-new", CreatedAt: later}))
	if err := s.SetAdminPassword(ctx, "carol", epoch, "h-new", "h-first"); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("a reset of the first carol on the second: %v, want ErrNotFound", err)
	}
	if err := s.SetAdminTOTP(ctx, read); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("a TOTP write of the first carol on the second: %v, want ErrNotFound", err)
	}
	if a := current(); a.PasswordHash != "h-new" || a.TOTPEnabled || !a.CreatedAt.Equal(later) {
		t.Fatalf("the second carol after writes meant for the first: %+v", a)
	}
}

func testAdminSessions(t *testing.T, s access.Store) {
	ctx := context.Background()
	for _, h := range []string{"h1", "h2"} {
		must(t, s.InsertAdminSession(ctx, &access.AdminSession{TokenHash: h, Username: "alice", CreatedAt: epoch, ExpiresAt: epoch.Add(time.Hour)}))
	}
	must(t, s.InsertAdminSession(ctx, &access.AdminSession{TokenHash: "h3", Username: "bob", CreatedAt: epoch, ExpiresAt: epoch.Add(time.Hour)}))
	got, err := s.AdminSessionByHash(ctx, "h1")
	must(t, err)
	if got.Username != "alice" || !got.ExpiresAt.Equal(epoch.Add(time.Hour)) {
		t.Fatalf("session = %+v", got)
	}
	// The idle end moves; a session that is gone is not brought back.
	must(t, s.SetAdminSessionExpiry(ctx, "h1", epoch.Add(2*time.Hour)))
	if got, err := s.AdminSessionByHash(ctx, "h1"); err != nil || !got.ExpiresAt.Equal(epoch.Add(2*time.Hour)) || !got.CreatedAt.Equal(epoch) {
		t.Fatalf("after SetAdminSessionExpiry: %+v, %v", got, err)
	}
	if err := s.SetAdminSessionExpiry(ctx, "nope", epoch); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("SetAdminSessionExpiry of no session: %v, want ErrNotFound", err)
	}
	if _, err := s.AdminSessionByHash(ctx, "nope"); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("SetAdminSessionExpiry created a session: %v", err)
	}
	must(t, s.DeleteAdminSession(ctx, "h1"))
	if err := s.DeleteAdminSession(ctx, "h1"); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("deleting twice: %v, want ErrNotFound", err)
	}
	must(t, s.DeleteAdminSessions(ctx, "alice"))
	if _, err := s.AdminSessionByHash(ctx, "h2"); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("alice's other session: %v, want ErrNotFound", err)
	}
	if _, err := s.AdminSessionByHash(ctx, "h3"); err != nil {
		t.Fatalf("bob's session: %v", err)
	}
}

func testSellerKeys(t *testing.T, s access.Store) {
	ctx := context.Background()
	k1 := &access.SellerKey{ID: "k1", AppID: "A", Name: "shop", Scopes: []string{"licenses:create", "users:read"}, SecretHash: "s1", CreatedAt: epoch}
	must(t, s.InsertSellerKey(ctx, k1))
	must(t, s.InsertSellerKey(ctx, &access.SellerKey{ID: "k2", AppID: "A", Name: "other", Scopes: []string{"audit:read"}, SecretHash: "s2", CreatedAt: epoch.Add(time.Second)}))
	must(t, s.InsertSellerKey(ctx, &access.SellerKey{ID: "k3", AppID: "B", Name: "b", Scopes: []string{"audit:read"}, SecretHash: "s3", CreatedAt: epoch}))
	if err := s.InsertSellerKey(ctx, &access.SellerKey{ID: "k4", AppID: "A", Name: "dup", Scopes: []string{"audit:read"}, SecretHash: "s1", CreatedAt: epoch}); !errors.Is(err, access.ErrDuplicate) {
		t.Fatalf("taken secret hash: %v, want ErrDuplicate", err)
	}
	got, err := s.SellerKeyByHash(ctx, "s1")
	must(t, err)
	if got.ID != "k1" || got.AppID != "A" || len(got.Scopes) != 2 || got.Scopes[1] != "users:read" || !got.LastUsedAt.IsZero() {
		t.Fatalf("key = %+v", got)
	}
	must(t, s.RecordSellerKeyUse(ctx, "k1", epoch.Add(time.Minute)))
	got, err = s.SellerKeyByHash(ctx, "s1")
	must(t, err)
	if !got.LastUsedAt.Equal(epoch.Add(time.Minute)) {
		t.Fatalf("last use = %v", got.LastUsedAt)
	}
	ks, err := s.SellerKeys(ctx, "A")
	must(t, err)
	if len(ks) != 2 || ks[0].ID != "k1" || ks[1].ID != "k2" {
		t.Fatalf("keys of A = %+v", ks)
	}
	must(t, s.DeleteSellerKey(ctx, "k1"))
	if _, err := s.SellerKeyByHash(ctx, "s1"); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("revoked key: %v, want ErrNotFound", err)
	}
	if err := s.DeleteSellerKey(ctx, "k1"); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("revoking twice: %v, want ErrNotFound", err)
	}
}

// testSellerKeysGoWithTheirApp: deleting an application deletes its seller
// keys, and only its own.
func testSellerKeysGoWithTheirApp(t *testing.T, s access.Store) {
	ctx := context.Background()
	a, b := newApp(t, s), newApp(t, s)
	for i, appID := range []string{a.ID, a.ID, b.ID} {
		must(t, s.InsertSellerKey(ctx, &access.SellerKey{ID: fmt.Sprintf("k%d", i), AppID: appID, Name: "shop",
			Scopes: []string{"audit:read"}, SecretHash: fmt.Sprintf("s%d", i), CreatedAt: epoch}))
	}
	must(t, s.DeleteApp(ctx, a.ID))
	for _, h := range []string{"s0", "s1"} {
		_, err := s.SellerKeyByHash(ctx, h)
		wantErr(t, err, access.ErrNotFound, "a key of the deleted application")
	}
	ks, err := s.SellerKeys(ctx, a.ID)
	must(t, err)
	if len(ks) != 0 {
		t.Fatalf("the deleted application still lists keys %+v", ks)
	}
	got, err := s.SellerKeyByHash(ctx, "s2")
	must(t, err)
	if got.ID != "k2" || got.AppID != b.ID {
		t.Fatalf("the other application's key = %+v", got)
	}
}
