package sqlitestore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// TestAppCounts_ActiveMembersMatchACountOfEveryMember compares the count
// from the day and hour counters with a count of every member, at moments
// around hour and day boundaries, as memberships change.
func TestAppCounts_ActiveMembersMatchACountOfEveryMember(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	base := time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	var users []string
	for i := range 60 {
		u := &access.User{ID: fmt.Sprintf("u%02d", i), AppID: "app", Username: fmt.Sprintf("user%02d", i), CreatedAt: base}
		if err := s.InsertUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		users = append(users, u.ID)
	}
	check := func(now time.Time) {
		t.Helper()
		c, err := s.AppCounts(ctx, "app", now)
		if err != nil {
			t.Fatal(err)
		}
		var want int64
		err = s.queryRow(ctx, `SELECT count(*) FROM memberships WHERE app_id = 'app' AND (is_lifetime = 1 OR expires_at > ?)`, ms(now)).Scan(&want)
		if err != nil {
			t.Fatal(err)
		}
		if c.ActiveMembers != want {
			t.Fatalf("at %v: %d active members, a count of every member says %d", now, c.ActiveMembers, want)
		}
	}
	for round := range 200 {
		// Grants of up to three days that start up to two days before
		// base, some lifetime, some revoking it.
		minutes := int64(rng.IntN(3 * 24 * 60))
		a := &access.Activation{ID: fmt.Sprintf("a%03d", round), AppID: "app", UserID: users[rng.IntN(len(users))],
			Type: access.ActivationGrant, OccurredAt: base.Add(-time.Duration(rng.IntN(2*24*60)) * time.Minute), Minutes: &minutes}
		switch rng.IntN(10) {
		case 0:
			a.Minutes, a.GrantsLifetimeAccess = nil, true
		case 1:
			a.Minutes, a.RevokesLifetimeAccess = nil, true
		}
		if err := s.AppendActivation(ctx, a); err != nil {
			t.Fatal(err)
		}
		if round%20 == 19 {
			if err := s.DeleteLedger(ctx, users[rng.IntN(len(users))]); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range []time.Duration{0, time.Hour - time.Millisecond, time.Hour, 90 * time.Minute, 24*time.Hour - time.Millisecond, 24 * time.Hour, 50 * time.Hour} {
			check(base.Add(d))
		}
		check(base.Add(time.Duration(rng.IntN(4*24*60)) * time.Minute))
	}
}

// TestMigrate_FromVersion1CountsExistingMembers opens a database written by
// the first schema version and checks that the second counts the
// memberships it holds.
func TestMigrate_FromVersion1CountsExistingMembers(t *testing.T) {
	s, upgrade := openAtVersion(t, t.TempDir(), 1)
	ctx := context.Background()
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	for i, minutes := range []int64{30, 90, 3000, 0} {
		u := &access.User{ID: fmt.Sprintf("u%d", i), AppID: "app", Username: fmt.Sprintf("user%d", i), CreatedAt: now}
		if err := s.InsertUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		a := &access.Activation{ID: "a", AppID: "app", UserID: u.ID, Type: access.ActivationGrant, OccurredAt: now.Add(-time.Hour), Minutes: &minutes}
		if minutes == 0 {
			a.Minutes, a.GrantsLifetimeAccess = nil, true
		}
		if err := s.AppendActivation(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	s = upgrade()
	c, err := s.AppCounts(ctx, "app", now)
	if err != nil {
		t.Fatal(err)
	}
	if c.ActiveMembers != 3 {
		t.Fatalf("%d active members after the migration, want 3", c.ActiveMembers)
	}
}

// TestMigrate_ActivityByDayCountsWhatWasThereBefore: the migration that
// adds the daily counters fills them from the users and license uses
// already stored.
func TestMigrate_ActivityByDayCountsWhatWasThereBefore(t *testing.T) {
	s, upgrade := openAtVersion(t, t.TempDir(), 6)
	ctx := context.Background()
	day := time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	// (No application row: this build's InsertApp writes columns a later
	// migration adds, and licenses do not reference applications.)
	lic := []access.License{{ID: "l1", AppID: "app", CreatedAt: day}, {ID: "l2", AppID: "app", CreatedAt: day}}
	if err := s.InsertLicenses(ctx, lic); err != nil {
		t.Fatal(err)
	}
	for i, at := range []time.Time{day.Add(time.Hour), day.Add(25 * time.Hour)} {
		id := fmt.Sprintf("u%d", i)
		r := &access.Redemption{
			Use:        &access.LicenseUse{LicenseID: lic[i].ID, AppID: "app", UserID: id, Username: id, ActivationID: "a" + id, OccurredAt: at, SignUp: true},
			NewUser:    &access.User{ID: id, AppID: "app", Username: id, CreatedAt: at},
			Activation: access.Activation{ID: "a" + id, AppID: "app", UserID: id, Type: access.ActivationLicense, LicenseID: lic[i].ID, OccurredAt: at},
		}
		if err := s.RedeemLicense(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := upgrade().ActivityByDay(ctx, "app", day, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range got {
		if d.SignUps != 1 || d.Activations != 1 {
			t.Errorf("day %d after the migration: %+v, want one sign-up and one activation", i, d)
		}
	}
}

// openAtVersion opens a new database in dir with only the first n
// migrations, as a build of that schema version would have made it; the
// returned upgrade closes it and opens it again with every migration.
func openAtVersion(t *testing.T, dir string, n int) (s *Store, upgrade func() *Store) {
	t.Helper()
	all := migrations
	migrations = all[:n]
	t.Cleanup(func() { migrations = all })
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, func() *Store {
		t.Helper()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		migrations = all
		upgraded, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = upgraded.Close() })
		return upgraded
	}
}
