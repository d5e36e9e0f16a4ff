package conformance

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
)

func testLicenses(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	ls := newLicenses(t, s, a.ID, 3, access.Grant{Minutes: ptr(int64(60))})
	got, err := s.LicenseByID(ctx, ls[1].ID)
	must(t, err)
	if got.ID != ls[1].ID || got.AppID != a.ID || got.CodeHint != ls[1].CodeHint || got.Grant.Minutes == nil || *got.Grant.Minutes != 60 {
		t.Fatalf("LicenseByID = %+v", got)
	}
	again := []access.License{{ID: uuid.NewString(), AppID: a.ID, CreatedAt: epoch}, ls[0]}
	wantErr(t, s.InsertLicenses(ctx, again), access.ErrDuplicate, "InsertLicenses with a taken ID")
	_, err = s.LicenseByID(ctx, "missing")
	wantErr(t, err, access.ErrNotFound, "LicenseByID of a missing license")
	_, _, err = s.LicenseUseByID(ctx, ls[0].ID)
	wantErr(t, err, access.ErrNotFound, "LicenseUseByID of an unused license")

	u := newUser(t, s, a.ID, "frank")
	r := redemption(a.ID, ls[0], u, epoch)
	must(t, s.InsertLicenseUse(ctx, r.Use, r.Grant))
	wantErr(t, s.InsertLicenseUse(ctx, r.Use, r.Grant), access.ErrDuplicate, "second InsertLicenseUse")
	must(t, s.MarkLicenseUsed(ctx, ls[0].ID))
	must(t, s.MarkLicenseUsed(ctx, ls[0].ID))
	use, g, err := s.LicenseUseByID(ctx, ls[0].ID)
	must(t, err)
	if *use != *r.Use || g.Minutes == nil || *g.Minutes != 60 {
		t.Fatalf("LicenseUseByID = %+v, %+v; want %+v", use, g, r.Use)
	}
	wantErr(t, s.RedeemLicense(ctx, redemption(a.ID, ls[0], nil, epoch)), access.ErrDuplicate, "RedeemLicense of a used license")

	must(t, s.DeleteLicense(ctx, ls[2].ID))
	_, err = s.LicenseByID(ctx, ls[2].ID)
	wantErr(t, err, access.ErrNotFound, "LicenseByID after DeleteLicense")
}

// listLicenses pages through an application's licenses and returns their
// IDs in the order seen.
func listLicenses(t *testing.T, s access.Store, appID string, f access.LicenseFilter, limit int) []string {
	t.Helper()
	var ids []string
	after := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("the listing does not end")
		}
		ls, err := s.Licenses(context.Background(), appID, f, after, limit)
		must(t, err)
		for _, l := range ls {
			if l.AppID != appID {
				t.Fatalf("license %s of app %s listed for app %s", l.ID, l.AppID, appID)
			}
			ids = append(ids, l.ID)
		}
		if len(ls) < limit {
			return ids
		}
		after = ls[len(ls)-1].ID
	}
}

func testLicensePaging(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	other := newApp(t, s)
	newLicenses(t, s, other.ID, 5, access.Grant{Minutes: ptr(int64(1))})
	ls := newLicenses(t, s, a.ID, 45, access.Grant{Minutes: ptr(int64(1))})
	u := newUser(t, s, a.ID, "gina")
	var all, used, unused []string
	for i, l := range ls {
		all = append(all, l.ID)
		if i%3 == 0 {
			var user *access.User
			if i%2 == 0 {
				user = u
			}
			must(t, s.RedeemLicense(ctx, redemption(a.ID, l, user, epoch)))
			used = append(used, l.ID)
		} else {
			unused = append(unused, l.ID)
		}
	}
	for _, ids := range [][]string{all, used, unused} {
		sort.Strings(ids)
	}
	for _, tc := range []struct {
		name string
		f    access.LicenseFilter
		want []string
	}{
		{"all", access.LicenseFilter{}, all},
		{"used", access.LicenseFilter{Used: ptr(true)}, used},
		{"unused", access.LicenseFilter{Used: ptr(false)}, unused},
	} {
		for _, limit := range []int{1, 4, 100} {
			if got := listLicenses(t, s, a.ID, tc.f, limit); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("%s licenses, limit %d: %v, want %v", tc.name, limit, got, tc.want)
			}
		}
	}
}

func testRedeemRace(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	l := newLicenses(t, s, a.ID, 1, access.Grant{Minutes: ptr(int64(60))})[0]
	errs := race(16, func(int) error { return s.RedeemLicense(ctx, redemption(a.ID, l, nil, epoch)) })
	oneWinner(t, errs)
	users, err := s.Users(ctx, a.ID, "", access.UserCursor{}, 100)
	must(t, err)
	if len(users) != 1 {
		t.Fatalf("%d users, want the winner's only", len(users))
	}
	use, _, err := s.LicenseUseByID(ctx, l.ID)
	if err != nil || use.UserID != users[0].ID {
		t.Fatalf("the claim %+v (%v) is not the user's %s", use, err, users[0].ID)
	}
	ledger, err := s.Ledger(ctx, users[0].ID)
	must(t, err)
	if len(access.DistinctActivations(ledger)) != 1 {
		t.Fatalf("ledger %v, want one entry", ledger)
	}
}

func testRedeemSignUp(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	l := newLicenses(t, s, a.ID, 1, access.Grant{GrantsLifetimeAccess: true})[0]
	r := redemption(a.ID, l, nil, epoch)
	must(t, s.RedeemLicense(ctx, r))
	acct, err := s.AccountByName(ctx, a.ID, access.UsernameKey(r.NewUser.Username))
	if err != nil || acct.ID != r.NewUser.ID {
		t.Fatalf("account %+v, %v; want the new user", acct, err)
	}
	if _, err := s.UserByID(ctx, r.NewUser.ID); err != nil {
		t.Fatalf("UserByID of the new user: %v", err)
	}
	ledger, err := s.Ledger(ctx, r.NewUser.ID)
	must(t, err)
	if len(ledger) != 1 || ledger[0].ID != r.Activation.ID || !access.MembershipOf(ledger).IsLifetime {
		t.Fatalf("ledger %+v, want the lifetime activation", ledger)
	}
	if ls := listLicenses(t, s, a.ID, access.LicenseFilter{Used: ptr(true)}, 10); len(ls) != 1 {
		t.Fatalf("used licenses %v, want the redeemed one", ls)
	}
}

func testCounts(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	other := newApp(t, s)
	newLicenses(t, s, other.ID, 3, access.Grant{Minutes: ptr(int64(60))})
	newUser(t, s, other.ID, "elsewhere")
	hour := newLicenses(t, s, a.ID, 8, access.Grant{Minutes: ptr(int64(60))})
	life := newLicenses(t, s, a.ID, 2, access.Grant{GrantsLifetimeAccess: true})
	kept := newUser(t, s, a.ID, "kept")
	gone := newUser(t, s, a.ID, "gone")
	must(t, s.RedeemLicense(ctx, redemption(a.ID, hour[0], nil, epoch)))                    // active until epoch+1h
	must(t, s.RedeemLicense(ctx, redemption(a.ID, hour[1], nil, epoch)))                    // active until epoch+1h
	must(t, s.RedeemLicense(ctx, redemption(a.ID, hour[2], kept, epoch.Add(-3*time.Hour)))) // expired
	must(t, s.RedeemLicense(ctx, redemption(a.ID, life[0], gone, epoch)))                   // lifetime
	must(t, s.DeleteLicense(ctx, hour[7].ID))

	want := access.AppCounts{Licenses: 9, LicensesUsed: 4, LicensesUnused: 5, Users: 4, ActiveMembers: 3}
	checkCounts(t, s, a.ID, epoch.Add(time.Minute), want)
	want.ActiveMembers = 1
	checkCounts(t, s, a.ID, epoch.Add(2*time.Hour), want)

	// A grant that revokes lifetime access ends that membership.
	must(t, s.AppendActivation(ctx, &access.Activation{ID: "revoke", AppID: a.ID, UserID: gone.ID, Type: access.ActivationGrant,
		OccurredAt: epoch.Add(time.Minute), RevokesLifetimeAccess: true}))
	want.ActiveMembers = 0
	checkCounts(t, s, a.ID, epoch.Add(2*time.Hour), want)

	// A deleted user is no longer counted.
	must(t, s.DeleteLedger(ctx, gone.ID))
	must(t, s.DeleteAccount(ctx, a.ID, "gone"))
	must(t, s.DeleteUser(ctx, gone.ID))
	want.Users = 3
	checkCounts(t, s, a.ID, epoch.Add(2*time.Hour), want)
	checkCounts(t, s, "no-such-app", epoch, access.AppCounts{})
}

func checkCounts(t *testing.T, s access.Store, appID string, now time.Time, want access.AppCounts) {
	t.Helper()
	got, err := s.AppCounts(context.Background(), appID, now)
	must(t, err)
	if got != want {
		t.Fatalf("AppCounts at %v = %+v, want %+v", now, got, want)
	}
}

func testLedgerRace(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	u := newUser(t, s, a.ID, "hank")
	errs := race(16, func(i int) error {
		return s.AppendActivation(ctx, &access.Activation{ID: fmt.Sprintf("a%02d", i), AppID: a.ID, UserID: u.ID,
			Type: access.ActivationGrant, OccurredAt: epoch, Minutes: ptr(int64(10))})
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	ledger, err := s.Ledger(ctx, u.ID)
	must(t, err)
	if n := len(access.DistinctActivations(ledger)); n != 16 {
		t.Fatalf("%d entries kept, want 16", n)
	}
	// The summary counts the membership the whole ledger gives.
	checkCounts(t, s, a.ID, epoch.Add(159*time.Minute), access.AppCounts{Users: 1, ActiveMembers: 1})
	checkCounts(t, s, a.ID, epoch.Add(160*time.Minute), access.AppCounts{Users: 1})

	// An entry written again (a repair racing the write) counts once.
	must(t, s.AppendActivation(ctx, &ledger[0]))
	ledger, err = s.Ledger(ctx, u.ID)
	must(t, err)
	if n := len(access.DistinctActivations(ledger)); n != 16 {
		t.Fatalf("%d distinct entries after a repeated write, want 16", n)
	}
	_, err = s.Ledger(ctx, "missing")
	must(t, err)
}

func testActivationPaging(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	u := newUser(t, s, a.ID, "ida")
	other := newUser(t, s, a.ID, "jack")
	var want []string
	for i := range 23 {
		id := fmt.Sprintf("e%02d", i)
		for _, user := range []*access.User{u, other} {
			must(t, s.AppendActivation(ctx, &access.Activation{ID: id, AppID: a.ID, UserID: user.ID, Type: access.ActivationGrant,
				OccurredAt: epoch.Add(time.Duration(-i) * time.Minute), Minutes: ptr(int64(1))}))
		}
		want = append(want, id)
	}
	for _, limit := range []int{1, 5, 100} {
		var got []string
		after := ""
		for pages := 0; ; pages++ {
			if pages > 100 {
				t.Fatal("the listing does not end")
			}
			p, err := s.Activations(ctx, u.ID, after, limit)
			must(t, err)
			for _, e := range p.Items {
				if e.UserID != u.ID {
					t.Fatalf("another user's entry %+v", e)
				}
				got = append(got, e.ID)
			}
			if p.Next == "" {
				break
			}
			after = p.Next
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("limit %d: %v, want %v in append order", limit, got, want)
		}
	}
}

func testActivityByDay(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	other := newApp(t, s)
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	ls := newLicenses(t, s, a.ID, 5, access.Grant{Minutes: ptr(int64(60))})
	// Day 0: two code sign-ups (23:59:59.999 still counts); day 2: one
	// more, an activation of an existing user and a password sign-up.
	must(t, s.RedeemLicense(ctx, redemption(a.ID, ls[0], nil, day.Add(time.Hour))))
	must(t, s.RedeemLicense(ctx, redemption(a.ID, ls[1], nil, day.Add(24*time.Hour-time.Millisecond))))
	signedUp := redemption(a.ID, ls[2], nil, day.AddDate(0, 0, 2))
	must(t, s.RedeemLicense(ctx, signedUp))
	u := &access.User{ID: uuid.NewString(), AppID: a.ID, Username: "pw", CreatedAt: day.AddDate(0, 0, 2).Add(3 * time.Hour)}
	must(t, s.InsertAccount(ctx, u))
	must(t, s.InsertUser(ctx, u))
	must(t, s.RedeemLicense(ctx, redemption(a.ID, ls[3], u, day.AddDate(0, 0, 2).Add(4*time.Hour))))
	// Elsewhere and outside the window.
	must(t, s.RedeemLicense(ctx, redemption(other.ID, newLicenses(t, s, other.ID, 1, access.Grant{})[0], nil, day)))
	must(t, s.RedeemLicense(ctx, redemption(a.ID, ls[4], nil, day.AddDate(0, 0, 3))))

	check := func(from time.Time, days int, want [][2]int64) {
		t.Helper()
		got, err := s.ActivityByDay(ctx, a.ID, from, days)
		must(t, err)
		if len(got) != len(want) {
			t.Fatalf("%d days, want %d", len(got), len(want))
		}
		for i, w := range want {
			d := from.UTC().Truncate(24*time.Hour).AddDate(0, 0, i)
			if !got[i].Day.Equal(d) || got[i].SignUps != w[0] || got[i].Activations != w[1] {
				t.Errorf("day %d: %v %d sign-ups %d activations, want %v %d %d", i, got[i].Day, got[i].SignUps, got[i].Activations, d, w[0], w[1])
			}
		}
	}
	check(day, 3, [][2]int64{{2, 2}, {0, 0}, {2, 2}})
	check(day.Add(-24*time.Hour+time.Minute), 2, [][2]int64{{0, 0}, {2, 2}})

	// A deleted user is no longer a sign-up; the code stays used.
	must(t, s.DeleteLedger(ctx, signedUp.NewUser.ID))
	must(t, s.DeleteAccount(ctx, a.ID, access.UsernameKey(signedUp.NewUser.Username)))
	must(t, s.DeleteUser(ctx, signedUp.NewUser.ID))
	check(day.AddDate(0, 0, 2), 1, [][2]int64{{1, 2}})
	got, err := s.ActivityByDay(ctx, "no-such-app", day, 2)
	must(t, err)
	if len(got) != 2 || got[0].SignUps != 0 || got[1].Activations != 0 {
		t.Fatalf("an unknown application's activity %+v, want two empty days", got)
	}
}
