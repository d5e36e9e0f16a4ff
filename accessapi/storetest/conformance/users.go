package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
)

func testApps(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	got, err := s.AppByID(ctx, a.ID)
	must(t, err)
	if *got != *a {
		t.Fatalf("AppByID = %+v, want %+v", got, a)
	}
	if got, err = s.AppByKey(ctx, a.APIKey); err != nil || got.ID != a.ID {
		t.Fatalf("AppByKey = %v, %v", got, err)
	}
	same := *a
	same.APIKey = "other"
	wantErr(t, s.InsertApp(ctx, &same), access.ErrDuplicate, "InsertApp with a taken ID")
	sameKey := *a
	sameKey.ID = uuid.NewString()
	wantErr(t, s.InsertApp(ctx, &sameKey), access.ErrDuplicate, "InsertApp with a taken key")
	_, err = s.AppByID(ctx, "missing")
	wantErr(t, err, access.ErrNotFound, "AppByID of a missing app")
	_, err = s.AppByKey(ctx, "missing")
	wantErr(t, err, access.ErrNotFound, "AppByKey of a missing key")
	missing := *a
	missing.ID = "missing"
	wantErr(t, s.ReplaceApp(ctx, &missing), access.ErrNotFound, "ReplaceApp of a missing app")
	a.Name = "renamed"
	must(t, s.ReplaceApp(ctx, a))
	if got, _ := s.AppByID(ctx, a.ID); got.Name != "renamed" {
		t.Fatalf("name after ReplaceApp = %q", got.Name)
	}
	b := newApp(t, s)
	apps, err := s.Apps(ctx)
	must(t, err)
	if len(apps) != 2 {
		t.Fatalf("%d apps, want 2", len(apps))
	}
	must(t, s.DeleteApp(ctx, b.ID))
	_, err = s.AppByID(ctx, b.ID)
	wantErr(t, err, access.ErrNotFound, "AppByID after DeleteApp")
}

func testAccounts(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	u := &access.User{ID: uuid.NewString(), AppID: a.ID, Username: "Alice", PasswordHash: "hash", CreatedAt: epoch}
	must(t, s.InsertAccount(ctx, u))
	other := &access.User{ID: uuid.NewString(), AppID: a.ID, Username: "ALICE", CreatedAt: epoch}
	wantErr(t, s.InsertAccount(ctx, other), access.ErrDuplicate, "InsertAccount of a name differing in case")
	got, err := s.AccountByName(ctx, a.ID, "alice")
	must(t, err)
	if *got != *u {
		t.Fatalf("AccountByName = %+v, want %+v", got, u)
	}
	_, err = s.AccountByName(ctx, a.ID, "bob")
	wantErr(t, err, access.ErrNotFound, "AccountByName of a missing name")
	// Another application has its own names.
	b := newApp(t, s)
	must(t, s.InsertAccount(ctx, &access.User{ID: uuid.NewString(), AppID: b.ID, Username: "alice", CreatedAt: epoch}))

	must(t, s.InsertUser(ctx, &access.User{ID: u.ID, AppID: a.ID, Username: u.Username, CreatedAt: epoch}))
	wantErr(t, s.InsertUser(ctx, &access.User{ID: u.ID, AppID: a.ID, Username: u.Username, CreatedAt: epoch}),
		access.ErrDuplicate, "InsertUser with a taken ID")
	byID, err := s.UserByID(ctx, u.ID)
	must(t, err)
	if byID.Username != "Alice" || byID.PasswordHash != "" || !byID.CreatedAt.Equal(epoch.Truncate(time.Millisecond)) {
		t.Fatalf("UserByID = %+v", byID)
	}
	_, err = s.UserByID(ctx, "missing")
	wantErr(t, err, access.ErrNotFound, "UserByID of a missing user")

	deleted, err := s.IsUserDeleted(ctx, u.ID)
	must(t, err)
	if deleted {
		t.Fatal("user is deleted before MarkUserDeleted")
	}
	must(t, s.MarkUserDeleted(ctx, u.ID))
	must(t, s.MarkUserDeleted(ctx, u.ID))
	if deleted, err = s.IsUserDeleted(ctx, u.ID); err != nil || !deleted {
		t.Fatalf("IsUserDeleted = %v, %v after MarkUserDeleted", deleted, err)
	}
	must(t, s.DeleteAccount(ctx, a.ID, "alice"))
	must(t, s.DeleteUser(ctx, u.ID))
	_, err = s.UserByID(ctx, u.ID)
	wantErr(t, err, access.ErrNotFound, "UserByID after DeleteUser")
	_, err = s.AccountByName(ctx, a.ID, "alice")
	wantErr(t, err, access.ErrNotFound, "AccountByName after DeleteAccount")
}

// listUsers pages through the users with a prefix and returns their names
// in the order seen.
func listUsers(t *testing.T, s access.Store, appID, prefix string, limit int) []string {
	t.Helper()
	var names []string
	var after access.UserCursor
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("the listing does not end")
		}
		users, err := s.Users(context.Background(), appID, prefix, after, limit)
		must(t, err)
		for _, u := range users {
			names = append(names, u.Username)
		}
		if len(users) < limit {
			return names
		}
		last := users[len(users)-1]
		after = access.UserCursor{UsernameKey: access.UsernameKey(last.Username), UserID: last.ID}
	}
}

func testUsersPaging(t *testing.T, s access.Store) {
	a := newApp(t, s)
	other := newApp(t, s)
	var all []string
	for i := range 57 {
		name := fmt.Sprintf("%s-%02d", []string{"ab", "Ac", "b", "äb"}[i%4], i)
		newUser(t, s, a.ID, name)
		all = append(all, name)
	}
	newUser(t, s, other.ID, "ab-other")
	for _, prefix := range []string{"", "AB", "a", "äb", "zz"} {
		var want []string
		for _, name := range all {
			if strings.HasPrefix(access.UsernameKey(name), access.UsernameKey(prefix)) {
				want = append(want, name)
			}
		}
		sort.Slice(want, func(i, j int) bool { return access.UsernameKey(want[i]) < access.UsernameKey(want[j]) })
		for _, limit := range []int{1, 7, 100} {
			got := listUsers(t, s, a.ID, access.UsernameKey(prefix), limit)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("prefix %q limit %d: %v, want %v", prefix, limit, got, want)
			}
		}
	}
}

func testBansAndLogins(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	u := newUser(t, s, a.ID, "carol")
	_, err := s.BanOf(ctx, u.ID)
	wantErr(t, err, access.ErrNotFound, "BanOf an unbanned user")
	must(t, s.InsertBan(ctx, &access.Ban{UserID: u.ID, Reason: "spam", At: epoch}))
	wantErr(t, s.InsertBan(ctx, &access.Ban{UserID: u.ID, Reason: "again", At: epoch}), access.ErrDuplicate, "second InsertBan")
	b, err := s.BanOf(ctx, u.ID)
	if err != nil || b.Reason != "spam" {
		t.Fatalf("BanOf = %v, %v", b, err)
	}
	must(t, s.DeleteBan(ctx, u.ID))
	_, err = s.BanOf(ctx, u.ID)
	wantErr(t, err, access.ErrNotFound, "BanOf after DeleteBan")

	_, err = s.LastLoginOf(ctx, u.ID)
	wantErr(t, err, access.ErrNotFound, "LastLoginOf before a login")
	must(t, s.RecordLogin(ctx, &access.LastLogin{UserID: u.ID, IP: "1.2.3.4", At: epoch}))
	must(t, s.RecordLogin(ctx, &access.LastLogin{UserID: u.ID, IP: "5.6.7.8", At: epoch.Add(time.Minute)}))
	l, err := s.LastLoginOf(ctx, u.ID)
	if err != nil || l.IP != "5.6.7.8" {
		t.Fatalf("LastLoginOf = %v, %v; want the last login", l, err)
	}
	must(t, s.DeleteLogin(ctx, u.ID))
	_, err = s.LastLoginOf(ctx, u.ID)
	wantErr(t, err, access.ErrNotFound, "LastLoginOf after DeleteLogin")
}

func testAccountRace(t *testing.T, s access.Store) {
	a := newApp(t, s)
	errs := race(16, func(i int) error {
		name := []string{"Player1", "player1", "PLAYER1", "pLayer1"}[i%4]
		return s.InsertAccount(context.Background(), &access.User{ID: uuid.NewString(), AppID: a.ID, Username: name, CreatedAt: epoch})
	})
	oneWinner(t, errs)
}

func testDeviceRace(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	u := newUser(t, s, a.ID, "dave")
	errs := race(16, func(i int) error {
		return s.InsertDevice(ctx, &access.Device{UserID: u.ID, AppID: a.ID, Slot: 0, HardwareID: fmt.Sprintf("hw-%d", i), RegisteredAt: epoch})
	})
	oneWinner(t, errs)
	d, err := s.DeviceInSlot(ctx, u.ID, 0)
	must(t, err)
	won := 0
	for i, err := range errs {
		if err == nil && d.HardwareID == fmt.Sprintf("hw-%d", i) {
			won++
		}
	}
	if won != 1 {
		t.Fatalf("slot holds %q, not the winner's device", d.HardwareID)
	}
	_, err = s.DeviceInSlot(ctx, u.ID, 1)
	wantErr(t, err, access.ErrNotFound, "DeviceInSlot of a free slot")
	must(t, s.DeleteDevices(ctx, u.ID))
	_, err = s.DeviceInSlot(ctx, u.ID, 0)
	wantErr(t, err, access.ErrNotFound, "DeviceInSlot after DeleteDevices")
}

func testSessions(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	u := newUser(t, s, a.ID, "erin")
	for i, exp := range []time.Duration{-2 * time.Hour, -time.Hour, time.Hour} {
		must(t, s.InsertSession(ctx, &access.Session{TokenHash: fmt.Sprintf("h%d", i), AppID: a.ID, UserID: u.ID,
			CreatedAt: epoch, ExpiresAt: epoch.Add(exp)}))
	}
	wantErr(t, s.InsertSession(ctx, &access.Session{TokenHash: "h0", AppID: a.ID, UserID: u.ID, CreatedAt: epoch, ExpiresAt: epoch}),
		access.ErrDuplicate, "InsertSession with a taken hash")
	x, err := s.SessionByHash(ctx, "h2")
	if err != nil || x.UserID != u.ID || !x.ExpiresAt.Equal(epoch.Add(time.Hour).Truncate(time.Millisecond)) {
		t.Fatalf("SessionByHash = %+v, %v", x, err)
	}
	_, err = s.SessionByHash(ctx, "missing")
	wantErr(t, err, access.ErrNotFound, "SessionByHash of a missing hash")
	n, err := s.DeleteSessionsExpiredBefore(ctx, epoch)
	if err != nil || n != 2 {
		t.Fatalf("DeleteSessionsExpiredBefore = %d, %v; want 2", n, err)
	}
	must(t, s.DeleteSession(ctx, "h2"))
	_, err = s.SessionByHash(ctx, "h2")
	wantErr(t, err, access.ErrNotFound, "SessionByHash after DeleteSession")
	must(t, s.InsertSession(ctx, &access.Session{TokenHash: "h3", AppID: a.ID, UserID: u.ID, CreatedAt: epoch, ExpiresAt: epoch}))
	must(t, s.DeleteUserSessions(ctx, u.ID))
	_, err = s.SessionByHash(ctx, "h3")
	wantErr(t, err, access.ErrNotFound, "SessionByHash after DeleteUserSessions")
}
