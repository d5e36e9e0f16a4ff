package access_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// race runs fn n times at once and returns the errors.
func race(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = fn(i)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

func countCodes(errs []error) map[access.Code]int {
	out := map[access.Code]int{}
	for _, err := range errs {
		if err == nil {
			out["ok"]++
		} else {
			out[access.CodeOf(err)]++
		}
	}
	return out
}

func TestSignUp_ConcurrentSameUsernameOneWins(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	errs := race(16, func(i int) error {
		// Names differ only in case: they are the same user.
		name := []string{"Player1", "player1", "PLAYER1", "pLayer1"}[i%4]
		_, err := f.svc.SignUp(ctx, f.app, access.SignUpRequest{Username: name, Password: "correct horse"})
		return err
	})
	got := countCodes(errs)
	if got["ok"] != 1 || got[access.CodeUsernameTaken] != 15 {
		t.Fatalf("outcomes %v, want 1 ok and 15 username_taken", got)
	}
	users, err := f.store.Users(ctx, f.app.ID, "", access.UserCursor{}, 100)
	if err != nil || len(users) != 1 {
		t.Fatalf("users %v (%v), want exactly one", users, err)
	}
}

func TestSignUpWithLicense_ConcurrentSameCodeMakesOneUser(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	code := f.license(t, minutesGrant(60))
	errs := race(16, func(int) error {
		_, err := f.svc.SignUpWithLicense(ctx, f.app, code, "")
		return err
	})
	got := countCodes(errs)
	if got["ok"] != 1 || got[access.CodeLicenseUsed] != 15 {
		t.Fatalf("outcomes %v, want 1 ok and 15 license_used", got)
	}
	users, err := f.store.Users(ctx, f.app.ID, "", access.UserCursor{}, 100)
	if err != nil || len(users) != 1 {
		t.Fatalf("users %v (%v), want exactly one", users, err)
	}
	ledger, _ := f.store.Ledger(ctx, users[0].ID)
	if n := len(access.DistinctActivations(ledger)); n != 1 {
		t.Fatalf("ledger has %d activations, want 1", n)
	}
	a := ledger[0]
	expiresIn(t, access.MembershipOf(ledger), a.OccurredAt, time.Hour)
}

func TestActivateLicense_ConcurrentSameCodeOneSuccess(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	names := []string{"alice", "bob"}
	for _, n := range names {
		if _, err := f.svc.SignUp(ctx, f.app, access.SignUpRequest{Username: n, Password: "vortex-lamp-71"}); err != nil {
			t.Fatal(err)
		}
	}
	code := f.license(t, minutesGrant(60))
	errs := race(16, func(i int) error {
		_, err := f.svc.ActivateLicense(ctx, f.app, access.ActivateRequest{Code: code, Username: names[i%2], Password: "vortex-lamp-71"})
		return err
	})
	got := countCodes(errs)
	if got["ok"] != 1 || got[access.CodeLicenseUsed] != 15 {
		t.Fatalf("outcomes %v, want 1 ok and 15 license_used", got)
	}
	total := 0
	for _, n := range names {
		u, _ := f.store.AccountByName(ctx, f.app.ID, n)
		l, _ := f.store.Ledger(ctx, u.ID)
		if d := access.DistinctActivations(l); len(d) > 0 {
			total += len(d)
			expiresIn(t, access.MembershipOf(l), d[0].OccurredAt, time.Hour)
		}
	}
	if total != 1 {
		t.Fatalf("%d activations in all, want 1", total)
	}
}

func TestLogin_ConcurrentNewDevicesNeverExceedTheLimit(t *testing.T) {
	f := newFixture(t, access.AppSettings{DeviceAuth: ptr(true), MaxDevices: ptr(2)})
	ctx := context.Background()
	code := f.license(t, minutesGrant(60))
	if _, err := f.svc.SignUpWithLicense(ctx, f.app, code, "hw-0"); err != nil {
		t.Fatal(err)
	}
	errs := race(16, func(i int) error {
		hw := []string{"hw-1", "hw-2", "hw-3", "hw-4"}[i%4]
		_, err := f.svc.Login(ctx, f.app, access.LoginRequest{Credentials: access.Credentials{Code: code, HardwareID: hw}})
		return err
	})
	got := countCodes(errs)
	// One of the four new devices takes the second slot; its four logins pass.
	if got["ok"] != 4 || got[access.CodeDeviceMismatch] != 12 {
		t.Fatalf("outcomes %v, want 4 ok and 12 device_mismatch", got)
	}
}
