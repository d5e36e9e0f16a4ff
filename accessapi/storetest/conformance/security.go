package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// testAppSecuritySettings: the settings of the security work survive a
// write and a replace.
func testAppSecuritySettings(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	a.TokenRequiresHardwareID, a.MaxSessions, a.OfflineTokenTTL = true, 3, 5*time.Hour
	a.Throttle = access.ThrottlePolicy{CodeFree: 2, MaxDelay: time.Minute, Window: 2 * time.Hour}
	must(t, s.ReplaceApp(ctx, a))
	got, err := s.AppByID(ctx, a.ID)
	must(t, err)
	if !got.TokenRequiresHardwareID || got.MaxSessions != 3 || got.Throttle != a.Throttle || got.OfflineTokenTTL != 5*time.Hour {
		t.Fatalf("read back %+v, want the settings of %+v", got, a)
	}
}

// testAccountPassword: a password is replaced in place; a missing account
// is ErrNotFound.
func testAccountPassword(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	u := newUser(t, s, a.ID, "pat")
	key := access.UsernameKey("pat")
	must(t, s.SetAccountPassword(ctx, a.ID, key, "$argon2id$new"))
	acct, err := s.AccountByName(ctx, a.ID, key)
	must(t, err)
	if acct.PasswordHash != "$argon2id$new" || acct.ID != u.ID {
		t.Fatalf("account %+v", acct)
	}
	wantErr(t, s.SetAccountPassword(ctx, a.ID, "nobody", "x"), access.ErrNotFound, "password of a missing account")
}

// testAccountPasswordUpgrade: a hash is upgraded only while it is the one
// the upgrade was computed from; after a change, or for a missing account,
// the upgrade is ErrNotFound and changes nothing.
func testAccountPasswordUpgrade(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	newUser(t, s, a.ID, "quinn")
	key := access.UsernameKey("quinn")
	hashOf := func() string {
		t.Helper()
		acct, err := s.AccountByName(ctx, a.ID, key)
		must(t, err)
		return acct.PasswordHash
	}
	must(t, s.SetAccountPassword(ctx, a.ID, key, "$argon2id$old"))
	must(t, s.UpgradeAccountPassword(ctx, a.ID, key, "$argon2id$old", "$argon2id$old-stronger"))
	if got := hashOf(); got != "$argon2id$old-stronger" {
		t.Fatalf("after the upgrade the hash is %q", got)
	}
	must(t, s.SetAccountPassword(ctx, a.ID, key, "$argon2id$changed"))
	wantErr(t, s.UpgradeAccountPassword(ctx, a.ID, key, "$argon2id$old-stronger", "$argon2id$stale"), access.ErrNotFound,
		"upgrade of a hash changed meanwhile")
	if got := hashOf(); got != "$argon2id$changed" {
		t.Fatalf("a stale upgrade replaced the changed hash: %q", got)
	}
	wantErr(t, s.UpgradeAccountPassword(ctx, a.ID, "nobody", "x", "y"), access.ErrNotFound, "upgrade of a missing account")
}

// testUserSessions: a user's sessions come oldest first, others' not at
// all; sessions made within one millisecond (the session cap's logins in
// a row) still come in the order they were made.
func testUserSessions(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	u, other := newUser(t, s, a.ID, "sam"), newUser(t, s, a.ID, "tom")
	for i, at := range []time.Duration{2 * time.Minute, 0, time.Minute} {
		must(t, s.InsertSession(ctx, &access.Session{TokenHash: fmt.Sprintf("h%d", i), AppID: a.ID, UserID: u.ID,
			CreatedAt: epoch.Add(at), ExpiresAt: epoch.Add(time.Hour)}))
	}
	// Hashes in the opposite order to the times: a tie broken by the hash
	// would show.
	for i, hash := range []string{"z", "y", "x"} {
		must(t, s.InsertSession(ctx, &access.Session{TokenHash: hash, AppID: a.ID, UserID: u.ID,
			CreatedAt: epoch.Add(3*time.Minute + time.Duration(i)*100*time.Microsecond), ExpiresAt: epoch.Add(time.Hour)}))
	}
	must(t, s.InsertSession(ctx, &access.Session{TokenHash: "theirs", AppID: a.ID, UserID: other.ID, CreatedAt: epoch, ExpiresAt: epoch.Add(time.Hour)}))
	got, err := s.UserSessions(ctx, u.ID)
	must(t, err)
	var order []string
	for _, x := range got {
		order = append(order, x.TokenHash)
	}
	if fmt.Sprint(order) != "[h1 h2 h0 z y x]" {
		t.Fatalf("sessions %v, want [h1 h2 h0 z y x] (oldest first)", order)
	}
}

// testAttempts: failures are counted per key within a window, sixteen
// concurrent ones all counted, and pruned by age; known sources are
// remembered once per owner, and read per account and source exactly.
func testAttempts(t *testing.T, s access.Store) {
	ctx := context.Background()
	errs := race(16, func(i int) error { return s.AddFailure(ctx, "k1", epoch.Add(time.Duration(i)*time.Second)) })
	must(t, errors.Join(errs...))
	must(t, s.AddFailure(ctx, "k2", epoch))
	n, last, err := s.Failures(ctx, "k1", epoch)
	must(t, err)
	if n != 16 || !last.Equal(epoch.Add(15*time.Second)) {
		t.Fatalf("failures %d, last %v; want 16, %v", n, last, epoch.Add(15*time.Second))
	}
	if n, _, _ := s.Failures(ctx, "k1", epoch.Add(10*time.Second)); n != 6 {
		t.Fatalf("failures in the window: %d, want 6", n)
	}
	if n, last, _ := s.Failures(ctx, "none", epoch); n != 0 || !last.IsZero() {
		t.Fatalf("failures of an unknown key: %d %v", n, last)
	}
	pruned, err := s.DeleteFailuresBefore(ctx, epoch.Add(time.Second))
	must(t, err)
	// k2's one failure and k1's first are older than the cut; k1 keeps 15.
	n2, _, _ := s.Failures(ctx, "k2", epoch)
	n1, _, _ := s.Failures(ctx, "k1", epoch)
	if pruned != 2 || n2 != 0 || n1 != 15 {
		t.Fatalf("pruned %d; left k2 %d, k1 %d; want 2, 0, 15", pruned, n2, n1)
	}

	owners := func(key, source string) string {
		t.Helper()
		got, err := s.KnownSourceOwners(ctx, key, source)
		must(t, err)
		slices.Sort(got)
		return strings.Join(got, " ")
	}
	if got := owners("acct", "src"); got != "" {
		t.Fatalf("an unknown source has owners %q", got)
	}
	must(t, s.AddKnownSource(ctx, "acct", "src", "u1", epoch))
	must(t, s.AddKnownSource(ctx, "acct", "src", "u1", epoch.Add(time.Hour))) // again: no error
	// The name's next user logs in from the same source: recorded too.
	must(t, s.AddKnownSource(ctx, "acct", "src", "u2", epoch.Add(2*time.Hour)))
	must(t, s.AddKnownSource(ctx, "acct", "src2", "u3", epoch))
	must(t, s.AddKnownSource(ctx, "acct", "src/x", "u4", epoch))
	must(t, s.AddKnownSource(ctx, "acct/src", "x", "u5", epoch))
	if got := owners("acct", "src"); got != "u1 u2" {
		t.Fatalf("owners of a known source %q, want \"u1 u2\"", got)
	}
	if got := owners("other", "src"); got != "" {
		t.Fatalf("a source known to one account is known to another, as %q", got)
	}
	if got := owners("acct", "sr"); got != "" {
		t.Fatalf("a source's prefix is known, as %q", got)
	}
}
