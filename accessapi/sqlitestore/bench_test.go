package sqlitestore_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/sqlitestore"
)

// The listing benchmarks run over a database of SQLITESTORE_BENCH_LICENSES
// licenses (default 100,000), a third of them used by as many new users
// (90-day memberships, one sign-up a minute back in time), built once per
// run in a temporary folder.
var large struct {
	once  sync.Once
	dir   string
	store *sqlitestore.Store
	app   string
	err   error
}

// TestMain removes the benchmarks' database once the package's tests and
// benchmarks are done: it outlives one benchmark, so no b.TempDir holds it.
func TestMain(m *testing.M) {
	code := m.Run()
	if large.store != nil {
		_ = large.store.Close()
	}
	if large.dir != "" {
		_ = os.RemoveAll(large.dir)
	}
	os.Exit(code)
}

func largeStore(b *testing.B) (*sqlitestore.Store, string) {
	b.Helper()
	large.once.Do(func() {
		n := 100_000
		if v, err := strconv.Atoi(os.Getenv("SQLITESTORE_BENCH_LICENSES")); err == nil && v > 0 {
			n = v
		}
		dir, err := os.MkdirTemp("", "sqlitestore-bench-")
		if err != nil {
			large.err = err
			return
		}
		large.dir = dir
		large.store, large.err = sqlitestore.Open(dir)
		if large.err != nil {
			return
		}
		large.app, large.err = seed(large.store, n)
	})
	if large.err != nil {
		b.Fatal(large.err)
	}
	return large.store, large.app
}

func seed(s *sqlitestore.Store, n int) (string, error) {
	ctx := context.Background()
	start := time.Now()
	app := &access.App{ID: uuid.NewString(), Name: "bench", APIKey: uuid.NewString(), SecretHash: "h", CreatedAt: start}
	if err := s.InsertApp(ctx, app); err != nil {
		return "", err
	}
	minutes := int64(90 * 24 * 60)
	g := access.Grant{Minutes: &minutes}
	batch := make([]access.License, 0, 10_000)
	var ids []string
	for i := range n {
		id := uuid.NewString()
		batch = append(batch, access.License{ID: id, AppID: app.ID, CodeHint: "ABCD", Grant: g, CreatedAt: start})
		if i%3 == 0 {
			ids = append(ids, id)
		}
		if len(batch) == cap(batch) || i == n-1 {
			if err := s.InsertLicenses(ctx, batch); err != nil {
				return "", err
			}
			batch = batch[:0]
		}
	}
	// Redeemed from several goroutines, as a server would: the writer
	// commits them in groups.
	errs := make(chan error, 8)
	for w := range 8 {
		go func() {
			for i := w; i < len(ids); i += 8 {
				// One sign-up a minute back in time: memberships of 90
				// days that end over the last and next few months.
				at := start.Add(-time.Duration(i) * time.Minute)
				if err := s.RedeemLicense(ctx, signUp(app.ID, ids[i], g, at)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			return "", err
		}
	}
	fmt.Fprintf(os.Stderr, "seeded %d licenses, %d used by new users, in %v\n", n, len(ids), time.Since(start).Round(time.Millisecond))
	return app.ID, nil
}

func signUp(appID, licenseID string, g access.Grant, at time.Time) *access.Redemption {
	userID := uuid.NewString()
	use := &access.LicenseUse{LicenseID: licenseID, AppID: appID, UserID: userID, Username: "user-" + userID[:18],
		ActivationID: "act-" + licenseID, OccurredAt: at, SignUp: true}
	return &access.Redemption{Use: use, Grant: g,
		NewUser: &access.User{ID: userID, AppID: appID, Username: use.Username, CreatedAt: at},
		Activation: access.Activation{ID: use.ActivationID, AppID: appID, UserID: userID, Type: access.ActivationLicense,
			LicenseID: licenseID, OccurredAt: at, Minutes: g.Minutes}}
}

// BenchmarkLicensesPage reads pages of 100 licenses from the middle of the
// listing, for each filter.
func BenchmarkLicensesPage(b *testing.B) {
	s, app := largeStore(b)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		f    access.LicenseFilter
	}{{"all", access.LicenseFilter{}}, {"used", access.LicenseFilter{Used: ptr(true)}}, {"unused", access.LicenseFilter{Used: ptr(false)}}} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				after := fmt.Sprintf("%x", i%16) // a cursor somewhere in the ID space
				ls, err := s.Licenses(ctx, app, tc.f, after, 100)
				if err != nil || len(ls) != 100 {
					b.Fatalf("%d licenses, %v", len(ls), err)
				}
			}
		})
	}
}

// BenchmarkUsersPage reads pages of 100 users by username prefix.
func BenchmarkUsersPage(b *testing.B) {
	s, app := largeStore(b)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		users, err := s.Users(ctx, app, "user-", access.UserCursor{UsernameKey: fmt.Sprintf("user-%x", i%16)}, 100)
		if err != nil || len(users) != 100 {
			b.Fatalf("%d users, %v", len(users), err)
		}
	}
}

// BenchmarkAppCounts counts licenses, users and active members.
func BenchmarkAppCounts(b *testing.B) {
	s, app := largeStore(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.AppCounts(ctx, app, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedeemLicense_SignUp is one license sign-up transaction (claim,
// account, user, ledger entry, counters) from concurrent callers.
func BenchmarkRedeemLicense_SignUp(b *testing.B) {
	s, err := sqlitestore.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	app := uuid.NewString()
	minutes := int64(60)
	g := access.Grant{Minutes: &minutes}
	ids := make([]string, b.N)
	ls := make([]access.License, b.N)
	for i := range ls {
		ids[i] = uuid.NewString()
		ls[i] = access.License{ID: ids[i], AppID: app, Grant: g, CreatedAt: time.Now()}
	}
	if err := s.InsertLicenses(ctx, ls); err != nil {
		b.Fatal(err)
	}
	var next sync.Mutex
	i := 0
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			next.Lock()
			id := ids[i]
			i++
			next.Unlock()
			if err := s.RedeemLicense(ctx, signUp(app, id, g, time.Now())); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }
