package access_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// instance is one App Access instance: a service whose caches follow the
// change feed through its own tailer.
type instance struct {
	svc  *access.Service
	feed *access.FeedTailer
}

// feedTestConfig keeps the throttle out of the way of tests that fail an
// application secret or sign up many times from one address.
func feedTestConfig() access.Config {
	return access.Config{Argon2: cheapArgon2, Throttle: access.ThrottlePolicy{SecretFree: 100000, SignUpsPerAddress: 100000, CodeFree: 100000}}
}

// startInstance starts an instance over store, stopped when the test ends.
func startInstance(t testing.TB, store access.Store, cfg access.Config, fc access.FeedConfig) *instance {
	t.Helper()
	in := newInstance(store, cfg, fc)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		in.feed.Run(ctx, in.svc)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return in
}

// newInstance is an instance over store whose feed is read only when the
// test polls it (or runs it).
func newInstance(store access.Store, cfg access.Config, fc access.FeedConfig) *instance {
	tail := access.NewFeedTailer(store, fc)
	cfg.Listeners = append(cfg.Listeners, tail.Record)
	return &instance{svc: access.NewService(store, cfg), feed: tail}
}

// sharedApp creates an application through a and authenticates it on
// both instances.
func sharedApp(t testing.TB, a, b *instance, name string) (created *access.NewApp, onA, onB *access.App) {
	t.Helper()
	ctx := context.Background()
	created, err := a.svc.CreateApp(ctx, access.AppSettings{Name: &name})
	must(t, err)
	onA, err = a.svc.AuthenticateApp(ctx, created.APIKey, created.APISecret)
	must(t, err)
	onB, err = b.svc.AuthenticateApp(ctx, created.APIKey, created.APISecret)
	must(t, err)
	return created, onA, onB
}

// waitFor polls observed until it holds and returns how long that took;
// it fails the test after limit.
func waitFor(t *testing.T, what string, limit time.Duration, observed func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !observed() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not observed within %v", what, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// percentile returns the p-th percentile (nearest rank) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// TestTwoInstances_ShareSessionsAndObeyEachOthersChangesWithinASecond runs
// two instances on one MongoDB-protocol store. A session opened on one
// works on the other; each kind of change made through one is obeyed by
// the other within 1s (p99 printed per kind); a license code redeemed
// through both at once is redeemed once.
func TestTwoInstances_ShareSessionsAndObeyEachOthersChangesWithinASecond(t *testing.T) {
	if testing.Short() {
		t.Skip("measures propagation over many rounds")
	}
	ctx := context.Background()
	store := storetest.Mongo(t)
	a := startInstance(t, store, feedTestConfig(), access.FeedConfig{})
	b := startInstance(t, store, feedTestConfig(), access.FeedConfig{})

	created, err := a.svc.CreateApp(ctx, access.AppSettings{Name: ptr("two instances")})
	if err != nil {
		t.Fatal(err)
	}
	key, secret := created.APIKey, created.APISecret
	appOn := func(in *instance) *access.App {
		t.Helper()
		app, err := in.svc.AuthenticateApp(ctx, key, secret)
		if err != nil {
			t.Fatalf("authenticating the application: %v", err)
		}
		return app
	}
	fa := &fixture{store: store, svc: a.svc, app: appOn(a)}
	code := fa.license(t, minutesGrant(600))
	view, err := a.svc.SignUpWithLicense(ctx, fa.app, code, "")
	if err != nil {
		t.Fatal(err)
	}
	userID := view.ID

	t.Run("a session opened on one works on the other", func(t *testing.T) {
		grant, err := a.svc.Login(ctx, appOn(a), access.LoginRequest{Credentials: access.Credentials{Code: code}})
		if err != nil {
			t.Fatal(err)
		}
		u, err := b.svc.Authenticate(ctx, appOn(b), access.Credentials{Token: grant.Token}, true)
		if err != nil || u.ID != userID {
			t.Fatalf("token on the other instance: %+v, %v", u, err)
		}
	})

	codeAnswer := func() access.Code {
		_, err := b.svc.Authenticate(ctx, appOn(b), access.Credentials{Code: code}, true)
		if err == nil {
			return ""
		}
		return access.CodeOf(err)
	}
	expiresOnB := func() time.Time {
		u, err := b.svc.Authenticate(ctx, appOn(b), access.Credentials{Code: code}, false)
		if err != nil || u.Membership.ExpiresAt == nil {
			t.Fatalf("membership on the other instance: %+v, %v", u, err)
		}
		return *u.Membership.ExpiresAt
	}
	var (
		token, name string
		expires     time.Time
	)
	type kind struct {
		name   string
		warm   func()      // makes b cache the answer before the change
		change func()      // through a
		obeyed func() bool // b's answer after the change
	}
	kinds := []kind{
		{"ban", func() {
			must(t, a.svc.UnbanUser(ctx, created.ID, userID))
			waitFor(t, "unban before the ban", 3*time.Second, func() bool { return codeAnswer() == "" })
		},
			func() { must(t, a.svc.BanUser(ctx, created.ID, userID, "test")) },
			func() bool { return codeAnswer() == access.CodeUserBanned }},
		{"unban", func() {
			must(t, a.svc.BanUser(ctx, created.ID, userID, "test"))
			waitFor(t, "ban before the unban", 3*time.Second, func() bool { return codeAnswer() == access.CodeUserBanned })
		},
			func() { must(t, a.svc.UnbanUser(ctx, created.ID, userID)) },
			func() bool { return codeAnswer() == "" }},
		{"logout", func() {
			grant, err := a.svc.Login(ctx, appOn(a), access.LoginRequest{Credentials: access.Credentials{Code: code}})
			must(t, err)
			token = grant.Token
			_, err = b.svc.Authenticate(ctx, appOn(b), access.Credentials{Token: token}, true)
			must(t, err)
		}, func() { must(t, a.svc.Logout(ctx, appOn(a), token)) },
			func() bool {
				_, err := b.svc.Authenticate(ctx, appOn(b), access.Credentials{Token: token}, true)
				return err != nil && access.CodeOf(err) == access.CodeInvalidCredentials
			}},
		{"grant", func() { expires = expiresOnB() },
			func() {
				_, err := a.svc.GrantUser(ctx, created.ID, userID, access.GrantRequest{Grant: minutesGrant(60)})
				must(t, err)
			},
			func() bool { return expiresOnB().After(expires) }},
		{"app settings", func() { appOn(b) },
			func() {
				name = fmt.Sprintf("renamed %d", time.Now().UnixNano())
				_, err := a.svc.UpdateApp(ctx, created.ID, access.AppSettings{Name: &name})
				must(t, err)
			},
			func() bool { return appOn(b).Name == name }},
		{"secret rotation", func() { appOn(b) },
			func() {
				s, err := a.svc.RotateSecret(ctx, created.ID)
				must(t, err)
				secret = s
			},
			func() bool {
				_, err := b.svc.AuthenticateApp(ctx, key, secret)
				return err == nil
			}},
	}
	const rounds = 12
	for _, k := range kinds {
		t.Run(k.name+" is obeyed by the other within 1s", func(t *testing.T) {
			var took []time.Duration
			for range rounds {
				k.warm()
				time.Sleep(time.Duration(len(took)%5) * 23 * time.Millisecond) // spread over the read interval
				k.change()
				took = append(took, waitFor(t, k.name, 3*time.Second, k.obeyed))
			}
			p50, p99, worst := percentile(took, 50), percentile(took, 99), slices.Max(took)
			t.Logf("propagation of %-15s over %d rounds: p50 %v, p99 %v, max %v", k.name, rounds, p50.Round(time.Millisecond), p99.Round(time.Millisecond), worst.Round(time.Millisecond))
			// The target, p99 at most 1 s, holds the build that ships: the
			// run without the race detector (go run ./bench runs this test
			// so). Under it, with the other packages' tests beside it on two
			// cores, a change still has to arrive in 2 s.
			bound := time.Second
			if raceDetector {
				bound = 2 * time.Second
			}
			if p99 > bound {
				t.Fatalf("p99 %v, want at most %v", p99, bound)
			}
		})
	}

	t.Run("a code redeemed through both at once wins once", func(t *testing.T) {
		for range 10 {
			c := fa.license(t, minutesGrant(60))
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, in := range []*instance{a, b} {
				app := appOn(in)
				wg.Go(func() { _, errs[i] = in.svc.SignUpWithLicense(ctx, app, c, "") })
			}
			wg.Wait()
			wins := 0
			for _, err := range errs {
				if err == nil {
					wins++
				} else if access.CodeOf(err) != access.CodeLicenseUsed {
					t.Fatalf("the loser failed with %v, want %s", err, access.CodeLicenseUsed)
				}
			}
			if wins != 1 {
				t.Fatalf("%d redemptions won, want 1 (%v)", wins, errs)
			}
		}
	})
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestTwoInstances_APasswordChangeEndsTheOldPasswordOnTheOtherWithinASecond:
// a password verified on one instance is cached there; a change or an
// administrator's reset made through another instance reaches it through
// the change feed, so the old password stops working there within a
// second, long before the credential cache's own minute runs out.
func TestTwoInstances_APasswordChangeEndsTheOldPasswordOnTheOtherWithinASecond(t *testing.T) {
	ctx := context.Background()
	store := storetest.Default(t)
	a := startInstance(t, store, feedTestConfig(), access.FeedConfig{})
	b := startInstance(t, store, feedTestConfig(), access.FeedConfig{})
	created, appA, appB := sharedApp(t, a, b, "passwords")
	const first, second, third = "first passphrase 1", "second passphrase 2", "third passphrase 3"
	view, err := a.svc.SignUp(ctx, appA, access.SignUpRequest{Username: "erin", Password: first})
	must(t, err)
	_, err = a.svc.GrantUser(ctx, created.ID, view.ID, access.GrantRequest{Grant: minutesGrant(600)})
	must(t, err)
	onB := func(password string) access.Code {
		_, err := b.svc.Authenticate(ctx, appB, access.Credentials{Username: "erin", Password: password}, true)
		if err == nil {
			return ""
		}
		return access.CodeOf(err)
	}
	for _, tc := range []struct {
		name     string
		old, new string
		change   func(old, new string) error
	}{
		{"the user's own change", first, second, func(old, new string) error {
			return a.svc.ChangePassword(ctx, appA, access.PasswordChange{Username: "erin", OldPassword: old, NewPassword: new})
		}},
		{"an administrator's reset", second, third, func(_, new string) error {
			return a.svc.ResetPassword(ctx, created.ID, view.ID, new)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			waitFor(t, "the old password to work on the other instance", 3*time.Second, func() bool { return onB(tc.old) == "" })
			must(t, tc.change(tc.old, tc.new))
			took := waitFor(t, "the old password refused on the other instance", time.Second, func() bool {
				return onB(tc.old) == access.CodeInvalidCredentials
			})
			if code := onB(tc.new); code != "" {
				t.Fatalf("the new password on the other instance: %s", code)
			}
			t.Logf("the old password stopped working on the other instance after %v", took.Round(time.Millisecond))
		})
	}
}
