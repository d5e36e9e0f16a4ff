package access_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// crashingStore is the real store with a crash injected before its n-th
// write: that write and every later one fail, as if the process had died.
// It redeems licenses the way a store without transactions (MongoDB) does,
// one write at a time, so that every write point of that path is crashed.
type crashingStore struct {
	access.Store
	n, writes int
}

var errCrash = errors.New("injected crash")

func (c *crashingStore) write() error {
	c.writes++
	if c.writes >= c.n {
		return errCrash
	}
	return nil
}

func (c *crashingStore) InsertAccount(ctx context.Context, u *access.User) error {
	if err := c.write(); err != nil {
		return err
	}
	return c.Store.InsertAccount(ctx, u)
}

func (c *crashingStore) InsertUser(ctx context.Context, u *access.User) error {
	if err := c.write(); err != nil {
		return err
	}
	return c.Store.InsertUser(ctx, u)
}

func (c *crashingStore) InsertLicenseUse(ctx context.Context, u *access.LicenseUse, g access.Grant) error {
	if err := c.write(); err != nil {
		return err
	}
	return c.Store.InsertLicenseUse(ctx, u, g)
}

func (c *crashingStore) MarkLicenseUsed(ctx context.Context, licenseID string) error {
	if err := c.write(); err != nil {
		return err
	}
	return c.Store.MarkLicenseUsed(ctx, licenseID)
}

func (c *crashingStore) RedeemLicense(ctx context.Context, r *access.Redemption) error {
	return access.RedeemInOrder(ctx, c, r)
}

func (c *crashingStore) AppendActivation(ctx context.Context, a *access.Activation) error {
	if err := c.write(); err != nil {
		return err
	}
	return c.Store.AppendActivation(ctx, a)
}

func (c *crashingStore) InsertDevice(ctx context.Context, d *access.Device) error {
	if err := c.write(); err != nil {
		return err
	}
	return c.Store.InsertDevice(ctx, d)
}

// TestLicenseSignUp_CrashAtAnyWriteNeverLosesOrDoublesTime crashes a license
// sign-up before each of its writes in turn, restarts (a new Service with
// empty caches), lets the client retry and log in, and checks that there is
// exactly one user whose membership holds the license's time exactly once.
func TestLicenseSignUp_CrashAtAnyWriteNeverLosesOrDoublesTime(t *testing.T) {
	for n := 1; ; n++ {
		f := newFixture(t, access.AppSettings{DeviceAuth: ptr(true)})
		ctx := context.Background()
		code := f.license(t, minutesGrant(90))
		crashing := &crashingStore{Store: f.store, n: n}
		_, err := newService(crashing).SignUpWithLicense(ctx, f.app, code, "hw-1")
		if err == nil {
			if n < 4 {
				t.Fatalf("sign-up made only %d writes", n-1)
			}
			return // the crash point is past the last write: every point was tried
		}
		t.Run(fmt.Sprintf("crash before write %d", n), func(t *testing.T) {
			if !errors.Is(err, errCrash) {
				t.Fatalf("sign-up failed with %v, want the injected crash", err)
			}
			restarted := newService(f.store)
			_, retryErr := restarted.SignUpWithLicense(ctx, f.app, code, "hw-1")
			if retryErr != nil && access.CodeOf(retryErr) != access.CodeLicenseUsed {
				t.Fatalf("retry: %v", retryErr)
			}
			// The license-only user logs in with the code.
			if _, err := restarted.Login(ctx, f.app, access.LoginRequest{Credentials: access.Credentials{Code: code, HardwareID: "hw-1"}}); err != nil {
				t.Fatalf("login after recovery: %v", err)
			}
			users, err := f.store.Users(ctx, f.app.ID, "", access.UserCursor{}, 10)
			if err != nil || len(users) != 1 {
				t.Fatalf("users after recovery: %d (%v), want 1", len(users), err)
			}
			checkOneActivation(t, f, users[0].ID, 90*time.Minute)
		})
	}
}

// TestActivateLicense_CrashAtAnyWriteNeverLosesOrDoublesTime does the same
// for an existing user activating a license.
func TestActivateLicense_CrashAtAnyWriteNeverLosesOrDoublesTime(t *testing.T) {
	for n := 1; ; n++ {
		f := newFixture(t, access.AppSettings{})
		ctx := context.Background()
		user, err := f.svc.SignUp(ctx, f.app, access.SignUpRequest{Username: "carol", Password: "vortex-lamp-71"})
		if err != nil {
			t.Fatal(err)
		}
		code := f.license(t, minutesGrant(30))
		req := access.ActivateRequest{Code: code, Username: "carol", Password: "vortex-lamp-71"}
		_, err = newService(&crashingStore{Store: f.store, n: n}).ActivateLicense(ctx, f.app, req)
		if err == nil {
			if n < 3 {
				t.Fatalf("activation made only %d writes", n-1)
			}
			return
		}
		t.Run(fmt.Sprintf("crash before write %d", n), func(t *testing.T) {
			if !errors.Is(err, errCrash) {
				t.Fatalf("activation failed with %v, want the injected crash", err)
			}
			restarted := newService(f.store)
			_, retryErr := restarted.ActivateLicense(ctx, f.app, req)
			if retryErr != nil && access.CodeOf(retryErr) != access.CodeLicenseUsed {
				t.Fatalf("retry: %v", retryErr)
			}
			checkOneActivation(t, f, user.ID, 30*time.Minute)
		})
	}
}

func checkOneActivation(t *testing.T, f *fixture, userID string, d time.Duration) {
	t.Helper()
	ledger, err := f.store.Ledger(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	acts := access.DistinctActivations(ledger)
	if len(acts) != 1 {
		t.Fatalf("%d activations, want 1", len(acts))
	}
	expiresIn(t, access.MembershipOf(ledger), acts[0].OccurredAt, d)
}
