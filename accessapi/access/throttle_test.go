package access_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// throttled is a service with a settable clock over a fresh store, with
// one application whose user "owner" has an hour of membership.
type throttled struct {
	*fixture
	clk *clock
}

func newThrottled(t *testing.T) *throttled { return newThrottledApp(t, access.AppSettings{}, "") }

// newThrottledApp is newThrottled for an application with these settings;
// the owner signs up with hardware id hw.
func newThrottledApp(t *testing.T, settings access.AppSettings, hw string) *throttled {
	f := newFixture(t, settings)
	clk := &clock{now: time.Now()}
	f.svc = access.NewService(f.store, access.Config{Argon2: cheapArgon2, Now: clk.Now})
	tt := &throttled{fixture: f, clk: clk}
	ctx := tt.from("192.0.2.1")
	if _, err := f.svc.SignUp(ctx, f.app, access.SignUpRequest{Username: "owner", Password: "the-right-one-99", HardwareID: hw}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.GrantUser(ctx, f.app.ID, mustUserID(t, f, "owner"), access.GrantRequest{Grant: minutesGrant(600)}); err != nil {
		t.Fatal(err)
	}
	return tt
}

func (tt *throttled) from(addr string) context.Context {
	return access.WithClientAddress(context.Background(), addr)
}

func (tt *throttled) login(addr, username, password string) error {
	_, err := tt.svc.Login(tt.from(addr), tt.app, access.LoginRequest{Credentials: access.Credentials{Username: username, Password: password}})
	return err
}

// retryAfter is the Retry-After of a throttling refusal, or 0.
func retryAfter(t *testing.T, err error) time.Duration {
	t.Helper()
	var e *access.Error
	if !errors.As(err, &e) || e.Code != access.CodeTooManyAttempts {
		return 0
	}
	if e.RetryAfter <= 0 {
		t.Fatalf("throttling refusal without Retry-After: %+v", e)
	}
	return e.RetryAfter
}

func TestThrottle_FailuresBackOffExponentiallyAndUnknownUsersAlike(t *testing.T) {
	for _, username := range []string{"owner", "nobody-at-all"} {
		t.Run(username, func(t *testing.T) {
			tt := newThrottled(t)
			addr := "198.51.100.7"
			for i := range access.DefaultThrottlePolicy.AccountAddressFree {
				wantCode(t, tt.login(addr, username, fmt.Sprintf("wrong-%d", i)), access.CodeInvalidCredentials)
			}
			for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
				err := tt.login(addr, username, "wrong-again")
				if got := retryAfter(t, err); got != want {
					t.Fatalf("throttled for %v (%v), want %v", got, err, want)
				}
				// Even the right password is refused while throttled: the
				// answer never tells whether a guess was right.
				if retryAfter(t, tt.login(addr, username, "the-right-one-99")) == 0 {
					t.Fatal("the right password got through a throttled pair")
				}
				tt.clk.advance(want)
				wantCode(t, tt.login(addr, username, "wrong-again"), access.CodeInvalidCredentials)
			}
		})
	}
}

func TestThrottle_AnAccountUnderAttackStillAdmitsItsOwner(t *testing.T) {
	tt := newThrottledApp(t, access.AppSettings{DeviceAuth: ptr(true), MaxDevices: ptr(5)}, "HW-OWNER-LAPTOP")
	home := "192.0.2.1"
	laptop := access.Credentials{Username: "owner", Password: "the-right-one-99", HardwareID: "HW-OWNER-LAPTOP"}
	if _, err := tt.svc.Authenticate(tt.from(home), tt.app, laptop, true); err != nil {
		t.Fatal(err)
	}
	// 50 attackers, each from its own address, one guess each: the account
	// counter fills up without any per-address counter doing so.
	for i := range 50 {
		wantCode(t, tt.login(fmt.Sprintf("203.0.113.%d", i+1), "owner", "guess"), access.CodeInvalidCredentials)
	}
	if retryAfter(t, tt.login("203.0.113.200", "owner", "guess")) == 0 {
		t.Fatal("a 51st attacker address was not throttled by the account counter")
	}
	if retryAfter(t, tt.login("203.0.113.201", "owner", "the-right-one-99")) == 0 {
		t.Fatal("an unknown address got in with the right password while the account is throttled")
	}
	// The owner, from the address they logged in from before, gets in.
	if _, err := tt.svc.Authenticate(tt.from(home), tt.app, laptop, true); err != nil {
		t.Fatalf("the owner was locked out: %v", err)
	}
	// So does the owner's known device from a new address (a trip) ...
	travel := tt.from("192.0.2.77")
	if _, err := tt.svc.Authenticate(travel, tt.app, laptop, true); err != nil {
		t.Fatalf("the owner's known device was held back: %v", err)
	}
	// ... but not an unknown device from an address never seen before.
	stranger := laptop
	stranger.HardwareID = "HW-SOMEONE-ELSE"
	if _, err := tt.svc.Authenticate(tt.from("192.0.2.78"), tt.app, stranger, true); retryAfter(t, err) == 0 {
		t.Fatalf("an unknown address and device: %v, want too_many_attempts", err)
	}
}

func TestThrottle_OneAddressAcrossAccounts(t *testing.T) {
	tt := newThrottled(t)
	addr := "198.51.100.9"
	for i := range 20 {
		wantCode(t, tt.login(addr, fmt.Sprintf("victim%d", i), "guess"), access.CodeInvalidCredentials)
	}
	if retryAfter(t, tt.login(addr, "victim-new", "guess")) == 0 {
		t.Fatal("credential stuffing from one address was not throttled")
	}
	// Another address is not affected.
	wantCode(t, tt.login("198.51.100.10", "victim-new", "guess"), access.CodeInvalidCredentials)
}

// TestThrottle_AHeldAddressTellsNoAccountFromAnother: once an address is
// held back, a guess at an account it logged in to and one at a name that
// does not exist get the same answer, so the hold is no way to learn which
// accounts are used from that address.
func TestThrottle_AHeldAddressTellsNoAccountFromAnother(t *testing.T) {
	tt := newThrottled(t) // the owner signed up from 192.0.2.1
	const shared = "192.0.2.1"
	for i := range access.DefaultThrottlePolicy.AddressFree {
		wantCode(t, tt.login(shared, fmt.Sprintf("victim%d", i), "guess"), access.CodeInvalidCredentials)
	}
	for _, name := range []string{"owner", "no-such-user"} {
		if err := tt.login(shared, name, "wrong-guess"); retryAfter(t, err) == 0 {
			t.Errorf("a wrong password for %q from the held address: %v, want too_many_attempts like any other", name, err)
		}
	}
}

// TestThrottle_TheRightSellerKeyIsNeverHeldBack: wrong secrets from an
// address (application secrets or seller keys) hold back wrong ones only;
// a shop's backend behind that address keeps working with its key.
func TestThrottle_TheRightSellerKeyIsNeverHeldBack(t *testing.T) {
	tt := newThrottled(t)
	k, err := tt.svc.CreateSellerKey(context.Background(), tt.app.ID, "backend", []string{access.ScopeAuditRead})
	if err != nil {
		t.Fatal(err)
	}
	ctx := tt.from("198.51.100.9")
	for range access.DefaultThrottlePolicy.SecretFree {
		_, err := tt.svc.AuthenticateSellerKey(ctx, "sk_wrong")
		wantCode(t, err, access.CodeAuthenticationRequired)
	}
	if _, err := tt.svc.AuthenticateSellerKey(ctx, "sk_wrong"); retryAfter(t, err) == 0 {
		t.Fatalf("a wrong seller key past the free ones: %v", err)
	}
	if _, err := tt.svc.AuthenticateSellerKey(ctx, k.Secret); err != nil {
		t.Fatalf("the right seller key from that address: %v", err)
	}
}

func TestThrottle_LicenseCodesSecretsAndSignUps(t *testing.T) {
	tt := newThrottledApp(t, access.AppSettings{Throttle: &access.ThrottlePolicy{SignUpsPerAddress: 20}}, "")
	addr := "198.51.100.20"
	ctx := tt.from(addr)
	for range access.DefaultThrottlePolicy.CodeFree {
		_, err := tt.svc.SignUpWithLicense(ctx, tt.app, access.NewLicenseCode(), "")
		wantCode(t, err, access.CodeLicenseInvalid)
	}
	_, err := tt.svc.SignUpWithLicense(ctx, tt.app, access.NewLicenseCode(), "")
	if retryAfter(t, err) == 0 {
		t.Fatalf("a wrong code past the free ones from one address: %v, want too_many_attempts", err)
	}
	// The header form and activations count against the same address.
	if _, err := tt.svc.Authenticate(ctx, tt.app, access.Credentials{Code: access.NewLicenseCode()}, true); retryAfter(t, err) == 0 {
		t.Fatalf("a wrong code in the header from a throttled address: %v", err)
	}
	// The right code is never held back: a buyer behind the address of a
	// client that guessed signs up, logs in with it and activates another.
	code := tt.license(t, minutesGrant(60))
	if _, err := tt.svc.SignUpWithLicense(ctx, tt.app, code, ""); err != nil {
		t.Fatalf("the right code from a throttled address: %v", err)
	}
	if _, err := tt.svc.Authenticate(ctx, tt.app, access.Credentials{Code: code}, true); err != nil {
		t.Fatalf("the right code in the header from a throttled address: %v", err)
	}
	if _, err := tt.svc.ActivateLicense(ctx, tt.app, access.ActivateRequest{Code: tt.license(t, minutesGrant(60)), Username: "owner", Password: "the-right-one-99"}); err != nil {
		t.Fatalf("activating the right code from a throttled address: %v", err)
	}
	// A used code is a wrong one.
	if _, err := tt.svc.SignUpWithLicense(ctx, tt.app, code, ""); retryAfter(t, err) == 0 {
		t.Fatalf("a used code from a throttled address: %v, want too_many_attempts", err)
	}

	for range access.DefaultThrottlePolicy.SecretFree {
		_, err := tt.svc.AuthenticateApp(ctx, tt.app.APIKey, "as_wrong")
		wantCode(t, err, access.CodeInvalidApplication)
	}
	if _, err := tt.svc.AuthenticateApp(ctx, tt.app.APIKey, "as_wrong"); retryAfter(t, err) == 0 {
		t.Fatalf("a wrong secret past the free ones: %v", err)
	}
	// The right secret is never held back: nothing to guess in 256 bits,
	// and a client behind the same address must not be locked out.
	secret, err := tt.svc.RotateSecret(context.Background(), tt.app.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tt.svc.AuthenticateApp(ctx, tt.app.APIKey, secret); err != nil {
		t.Fatalf("the right secret from an address that guessed: %v", err)
	}
	// Naming no key or secret guesses nothing: 401, never counted.
	other := tt.from("198.51.100.21")
	for range 2 * access.DefaultThrottlePolicy.SecretFree {
		_, err := tt.svc.AuthenticateApp(other, "", "")
		wantCode(t, err, access.CodeInvalidApplication)
	}
	if _, err := tt.svc.AuthenticateApp(other, tt.app.APIKey, "as_wrong"); err == nil || retryAfter(t, err) != 0 {
		t.Fatalf("a first wrong secret after requests without one: %v, want 401", err)
	}

	signUps := tt.from("198.51.100.30")
	for i := range 20 {
		if _, err := tt.svc.SignUp(signUps, tt.app, access.SignUpRequest{Username: fmt.Sprintf("new%d", i), Password: "fresh-secret-55"}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = tt.svc.SignUp(signUps, tt.app, access.SignUpRequest{Username: "one-more", Password: "fresh-secret-55"})
	if retryAfter(t, err) == 0 {
		t.Fatalf("a 21st sign-up from one address within the hour: %v", err)
	}
	tt.clk.advance(time.Hour)
	if _, err := tt.svc.SignUp(signUps, tt.app, access.SignUpRequest{Username: "one-more", Password: "fresh-secret-55"}); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestThrottle_AHardwareIDIsNoKnownSourceWithoutDeviceAuthentication(t *testing.T) {
	tt := newThrottled(t) // device authentication off: the id is the client's say-so
	creds := access.Credentials{Username: "owner", Password: "the-right-one-99", HardwareID: "HW-OWNER"}
	if _, err := tt.svc.Authenticate(tt.from("192.0.2.1"), tt.app, creds, true); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		wantCode(t, tt.login(fmt.Sprintf("203.0.113.%d", i+1), "owner", "guess"), access.CodeInvalidCredentials)
	}
	guess := creds
	guess.Password = "another-guess"
	if _, err := tt.svc.Authenticate(tt.from("203.0.113.99"), tt.app, guess, true); retryAfter(t, err) == 0 {
		t.Fatalf("a guess naming the owner's hardware id passed the account counter: %v", err)
	}
}

func TestThrottle_AnIPv6SlashSixtyFourIsOneClient(t *testing.T) {
	tt := newThrottled(t)
	for i := range 20 {
		addr := fmt.Sprintf("2001:db8:1:2::%x", i+1)
		wantCode(t, tt.login(addr, fmt.Sprintf("victim%d", i), "guess"), access.CodeInvalidCredentials)
	}
	if retryAfter(t, tt.login("2001:db8:1:2:ffff::1", "victim-new", "guess")) == 0 {
		t.Fatal("stuffing from one /64 was not throttled")
	}
	wantCode(t, tt.login("2001:db8:1:3::1", "victim-new", "guess"), access.CodeInvalidCredentials)
}

func TestThrottle_ATakenUsernameCostsNoHashAndCountsAgainstTheAddress(t *testing.T) {
	const quota = 20
	tt := newThrottledApp(t, access.AppSettings{Throttle: &access.ThrottlePolicy{SignUpsPerAddress: quota}}, "")
	ctx := tt.from("198.51.100.40")
	for range quota {
		start := time.Now()
		_, err := tt.svc.SignUp(ctx, tt.app, access.SignUpRequest{Username: "Owner", Password: "fresh-secret-55"})
		wantCode(t, err, access.CodeUsernameTaken)
		if took := time.Since(start); took > 50*time.Millisecond {
			t.Logf("a taken name took %v", took)
		}
	}
	_, err := tt.svc.SignUp(ctx, tt.app, access.SignUpRequest{Username: "Owner", Password: "fresh-secret-55"})
	if retryAfter(t, err) == 0 {
		t.Fatalf("a 21st sign-up attempt of a taken name: %v, want too_many_attempts", err)
	}
	wantDetail := "Too many accounts were created from this address; try again later."
	if e, ok := err.(*access.Error); !ok || e.Detail != wantDetail {
		t.Errorf("the quota's refusal says %v, want %q", err, wantDetail)
	}
}

// TestSignUp_ABurstOfFiftyFromOneAddressAllGoThrough: fifty people behind
// one address signing up at once (a classroom, an office) wait for the
// hashing slots instead of being refused, with the default queue and
// quota.
func TestSignUp_ABurstOfFiftyFromOneAddressAllGoThrough(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	// Hashes of a few milliseconds, so that the fifty overlap.
	svc := access.NewService(f.store, access.Config{Argon2: access.Argon2Params{MemoryKiB: 4096, Iterations: 1, Parallelism: 1}, HashConcurrency: 2})
	ctx := access.WithClientAddress(context.Background(), "198.51.100.50")
	errs := race(50, func(i int) error {
		_, err := svc.SignUp(ctx, f.app, access.SignUpRequest{Username: fmt.Sprintf("pupil%02d", i), Password: "correct horse battery"})
		return err
	})
	onlyThese(t, "50 sign-ups at once from one address", countCodes(errs), map[access.Code]int{"ok": 50})
}

// TestClientAddress_ThroughOtherContexts: the address WithClientAddress
// sets is found under other values and cancellations, the innermost one
// wins, other values and the parent's cancellation pass through, and a
// context without one has "".
func TestClientAddress_ThroughOtherContexts(t *testing.T) {
	type otherKey struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), otherKey{}, "v"))
	ctx := access.WithClientAddress(parent, "192.0.2.1")
	inner, stop := context.WithTimeout(context.WithValue(ctx, otherKey{}, "w"), time.Hour)
	defer stop()
	if got := access.ClientAddress(inner); got != "192.0.2.1" {
		t.Errorf("ClientAddress = %q, want 192.0.2.1", got)
	}
	if got := access.ClientAddress(access.WithClientAddress(inner, "2001:db8::1")); got != "2001:db8::1" {
		t.Errorf("ClientAddress of a second address = %q", got)
	}
	if got := access.ClientAddress(parent); got != "" {
		t.Errorf("ClientAddress without one = %q", got)
	}
	if ctx.Value(otherKey{}) != "v" || inner.Value(otherKey{}) != "w" {
		t.Error("other values do not pass through")
	}
	cancel()
	select {
	case <-inner.Done():
	case <-time.After(time.Second):
		t.Fatal("the parent's cancellation did not reach the context")
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("Err = %v", ctx.Err())
	}
}
