package access_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// Bursts: N attempts sent at once from one place must be judged as if they
// came one after another, so only the free ones are evaluated. The reads
// that stand between a throttle's check and its count are made slow, as a
// store across a network is; the clock stands still, so no wait elapses
// during a burst and the counts are exact.

// slowStore is the real store with 5 ms added to the reads of the
// secret-checking paths (licenses, accounts, failures, known sources).
type slowStore struct{ access.Store }

const storeLatency = 5 * time.Millisecond

func (s slowStore) LicenseByID(ctx context.Context, id string) (*access.License, error) {
	time.Sleep(storeLatency)
	return s.Store.LicenseByID(ctx, id)
}

func (s slowStore) LicenseUseByID(ctx context.Context, id string) (*access.LicenseUse, access.Grant, error) {
	time.Sleep(storeLatency)
	return s.Store.LicenseUseByID(ctx, id)
}

func (s slowStore) AccountByName(ctx context.Context, appID, key string) (*access.User, error) {
	time.Sleep(storeLatency)
	return s.Store.AccountByName(ctx, appID, key)
}

func (s slowStore) Failures(ctx context.Context, key string, since time.Time) (int, time.Time, error) {
	time.Sleep(storeLatency)
	return s.Store.Failures(ctx, key, since)
}

func (s slowStore) KnownSourceOwners(ctx context.Context, key, source string) ([]string, error) {
	time.Sleep(storeLatency)
	return s.Store.KnownSourceOwners(ctx, key, source)
}

// burstFixture is a service over the slow store with a clock that stands
// still, and hash slots for every attempt of a burst (so none is 503).
type burstFixture struct {
	svc *access.Service
	app *access.App
	clk *clock
}

func newBurstFixture(t *testing.T) *burstFixture {
	t.Helper()
	clk := &clock{now: time.Now()}
	svc := access.NewService(slowStore{storetest.Default(t)},
		access.Config{Argon2: cheapArgon2, Now: clk.Now, HashConcurrency: 64, HashQueue: 1024})
	app, err := svc.CreateApp(context.Background(), access.AppSettings{Name: ptr("burst")})
	if err != nil {
		t.Fatal(err)
	}
	return &burstFixture{svc: svc, app: &app.App, clk: clk}
}

// codes issues n license codes of an hour each.
func (b *burstFixture) codes(t *testing.T, n int) []string {
	t.Helper()
	ls, err := b.svc.CreateLicenses(context.Background(), b.app.ID, access.LicenseRequest{Count: n, Grant: minutesGrant(60)})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Code
	}
	return out
}

func from(addr string) context.Context { return access.WithClientAddress(context.Background(), addr) }

// onlyThese fails unless every outcome is one of want's codes, and each
// code of want with a count >= 0 has exactly that count.
func onlyThese(t *testing.T, what string, got, want map[access.Code]int) {
	t.Helper()
	t.Logf("%s: %v", what, got)
	for code, n := range got {
		w, ok := want[code]
		if !ok {
			t.Errorf("%s: %d answered %s, want only %v", what, n, code, want)
		} else if w >= 0 && n != w {
			t.Errorf("%s: %d answered %s, want %d", what, n, code, w)
		}
	}
}

func TestThrottle_ConcurrentCodeGuessesGetOnlyTheFreeAllowance(t *testing.T) {
	b := newBurstFixture(t)
	free := access.DefaultThrottlePolicy.CodeFree
	guess := func(i int) string { return fmt.Sprintf("AAAAA-BBBBB-CCCCC-DDDDD-%05d", i) }

	// sign_up_with_license_code
	errs := race(400, func(i int) error {
		_, err := b.svc.SignUpWithLicense(from("203.0.113.9"), b.app, guess(i), "")
		return err
	})
	onlyThese(t, "400 code sign-ups at once from one address", countCodes(errs),
		map[access.Code]int{access.CodeLicenseInvalid: free, access.CodeTooManyAttempts: 400 - free})

	// x-api-license-code (and the code form of a login)
	errs = race(400, func(i int) error {
		_, err := b.svc.Authenticate(from("203.0.113.10"), b.app, access.Credentials{Code: guess(i)}, true)
		return err
	})
	onlyThese(t, "400 x-api-license-code guesses at once from one address", countCodes(errs),
		map[access.Code]int{access.CodeInvalidCredentials: free, access.CodeTooManyAttempts: 400 - free})

	// activate_license, by a user who knows their password
	if _, err := b.svc.SignUp(from("203.0.113.11"), b.app, access.SignUpRequest{Username: "buyer", Password: "correct horse battery"}); err != nil {
		t.Fatal(err)
	}
	evaluated := 0
	for round := range 10 {
		errs = race(40, func(i int) error {
			_, err := b.svc.ActivateLicense(from("203.0.113.11"), b.app, access.ActivateRequest{
				Code: guess(1000 + 40*round + i), Username: "buyer", Password: "correct horse battery"})
			return err
		})
		got := countCodes(errs)
		onlyThese(t, fmt.Sprintf("round %d of 40 activations at once", round), got,
			map[access.Code]int{access.CodeLicenseInvalid: -1, access.CodeTooManyAttempts: -1})
		evaluated += got[access.CodeLicenseInvalid]
	}
	if evaluated != free {
		t.Errorf("%d code guesses evaluated through activate_license, want %d", evaluated, free)
	}
}

func TestThrottle_ConcurrentPasswordGuessesOnOneAccountGetOnlyTheFreeAllowance(t *testing.T) {
	b := newBurstFixture(t)
	p := access.DefaultThrottlePolicy
	owner := access.SignUpRequest{Username: "victim", Password: "correct horse battery"}
	if _, err := b.svc.SignUp(from("192.0.2.1"), b.app, owner); err != nil {
		t.Fatal(err)
	}
	login := func(addr, password string) error {
		_, err := b.svc.Authenticate(from(addr), b.app, access.Credentials{Username: "victim", Password: password}, false)
		return err
	}

	// One address: the (account, address) counter.
	total := map[access.Code]int{}
	for round := range 5 {
		errs := race(18, func(i int) error { return login("203.0.113.20", fmt.Sprintf("guess-%d-%d", round, i)) })
		for k, v := range countCodes(errs) {
			total[k] += v
		}
	}
	onlyThese(t, "5 bursts of 18 guesses at once from one address", total,
		map[access.Code]int{access.CodeInvalidCredentials: p.AccountAddressFree, access.CodeTooManyAttempts: 90 - p.AccountAddressFree})

	// An address per guess: the account's counter in the store. A burst
	// may refuse more than it must (attempts that race are refused) but
	// never evaluates more than the free ones; guesses one after another
	// then fill the allowance exactly.
	addr := func(i int) string { return fmt.Sprintf("10.%d.%d.1", i/250, i%250) }
	errs := race(200, func(i int) error { return login(addr(i), fmt.Sprintf("spray-%d", i)) })
	got := countCodes(errs)
	onlyThese(t, "200 guesses at once, each from its own address", got,
		map[access.Code]int{access.CodeInvalidCredentials: -1, access.CodeTooManyAttempts: -1})
	evaluated := got[access.CodeInvalidCredentials]
	if evaluated > p.AccountFree {
		t.Errorf("%d guesses on one account evaluated in a burst, want at most %d", evaluated, p.AccountFree)
	}
	for i := 200; i < 300; i++ {
		err := login(addr(i), "one-after-another")
		if access.CodeOf(err) == access.CodeTooManyAttempts {
			break
		}
		wantCode(t, err, access.CodeInvalidCredentials)
		evaluated++
	}
	// The guesses from 203.0.113.20 count against the account too.
	if evaluated+p.AccountAddressFree != p.AccountFree {
		t.Errorf("%d guesses from unknown addresses evaluated (plus %d from 203.0.113.20), want %d in all",
			evaluated, p.AccountAddressFree, p.AccountFree)
	}
	// The owner's address still gets in.
	if err := login("192.0.2.1", owner.Password); err != nil {
		t.Fatalf("the owner's known address: %v", err)
	}
}

func TestThrottle_ConcurrentSignUpsKeepTheHourlyQuota(t *testing.T) {
	b := newBurstFixture(t)
	const quota = 20
	app, err := b.svc.UpdateApp(context.Background(), b.app.ID, access.AppSettings{Throttle: &access.ThrottlePolicy{SignUpsPerAddress: quota}})
	if err != nil {
		t.Fatal(err)
	}
	b.app = app
	errs := race(100, func(i int) error {
		_, err := b.svc.SignUp(from("203.0.113.77"), b.app, access.SignUpRequest{Username: fmt.Sprintf("bot%03d", i), Password: "correct horse battery"})
		return err
	})
	onlyThese(t, "100 sign-ups at once from one address", countCodes(errs),
		map[access.Code]int{"ok": quota, access.CodeTooManyAttempts: 100 - quota})
	// So do license sign-ups, which share the quota.
	codes := b.codes(t, 10)
	errs = race(10, func(i int) error {
		_, err := b.svc.SignUpWithLicense(from("203.0.113.77"), b.app, codes[i], "")
		return err
	})
	onlyThese(t, "10 license sign-ups at once past the quota", countCodes(errs), map[access.Code]int{access.CodeTooManyAttempts: 10})
	b.clk.advance(time.Hour)
	if _, err := b.svc.SignUpWithLicense(from("203.0.113.77"), b.app, codes[0], ""); err != nil {
		t.Fatalf("a license sign-up after the window: %v", err)
	}
}

// A success ends its attempt without counting it: successes one after
// another never fill a counter, in memory or in the store.
func TestThrottle_SuccessesAreNotCounted(t *testing.T) {
	b := newBurstFixture(t)
	p := access.DefaultThrottlePolicy
	const password = "correct horse battery"
	for i := range p.AddressFree + 5 {
		if _, err := b.svc.SignUp(from(fmt.Sprintf("192.0.2.%d", i+1)), b.app, access.SignUpRequest{Username: fmt.Sprintf("user%d", i), Password: password}); err != nil {
			t.Fatal(err)
		}
	}
	login := func(addr, username, password string) error {
		_, err := b.svc.Authenticate(from(addr), b.app, access.Credentials{Username: username, Password: password}, false)
		return err
	}
	// One address, every account, twice: more than any free allowance.
	for round := range 2 {
		for i := range p.AddressFree + 5 {
			if err := login("198.51.100.1", fmt.Sprintf("user%d", i), password); err != nil {
				t.Fatalf("round %d, user%d: %v", round, i, err)
			}
		}
	}
	// The owner of user0 from more unknown addresses than the account's
	// free failures (each a recorded attempt, then forgiven).
	for i := range p.AccountFree + 5 {
		if err := login(fmt.Sprintf("10.1.%d.1", i), "user0", password); err != nil {
			t.Fatalf("user0 from a new address (%d): %v", i, err)
		}
	}
	// The address's and the account's allowances are whole.
	for i := range p.AddressFree {
		wantCode(t, login("198.51.100.1", fmt.Sprintf("user%d", i+1), "wrong"), access.CodeInvalidCredentials)
	}
	if err := login("198.51.100.1", "user22", "wrong"); access.CodeOf(err) != access.CodeTooManyAttempts {
		t.Fatalf("the address's %dth failure: %v, want too_many_attempts", p.AddressFree+1, err)
	}
	for i := range p.AccountFree {
		wantCode(t, login(fmt.Sprintf("10.2.%d.1", i), "user0", "wrong"), access.CodeInvalidCredentials)
	}
	if err := login("10.3.0.1", "user0", "wrong"); access.CodeOf(err) != access.CodeTooManyAttempts {
		t.Fatalf("the account's %dth failure from unknown addresses: %v, want too_many_attempts", p.AccountFree+1, err)
	}
}

// TestThrottle_ConcurrentGoodAttemptsAllGoThrough: attempts in flight wait
// for each other instead of being refused, so a burst with the right
// password (one account's parallel logins, an office behind one address,
// a program's parallel requests with password headers) and with a real
// code all succeed; only failures make a burst wait.
func TestThrottle_ConcurrentGoodAttemptsAllGoThrough(t *testing.T) {
	b := newBurstFixture(t)
	const password = "correct horse battery"
	for i := range 30 {
		if _, err := b.svc.SignUp(from(fmt.Sprintf("192.0.2.%d", i+1)), b.app, access.SignUpRequest{Username: fmt.Sprintf("staff%02d", i), Password: password}); err != nil {
			t.Fatal(err)
		}
	}
	login := func(addr, user string) error {
		_, err := b.svc.Authenticate(from(addr), b.app, access.Credentials{Username: user, Password: password}, false)
		return err
	}
	onlyThese(t, "10 logins at once of one account from a new address", countCodes(race(10, func(int) error { return login("203.0.113.50", "staff00") })),
		map[access.Code]int{"ok": 10})
	onlyThese(t, "30 accounts at once behind one address", countCodes(race(30, func(i int) error { return login("203.0.113.51", fmt.Sprintf("staff%02d", i)) })),
		map[access.Code]int{"ok": 30})

	codes := b.codes(t, 15)
	onlyThese(t, "15 license sign-ups with real codes at once from one address", countCodes(race(15, func(i int) error {
		_, err := b.svc.SignUpWithLicense(from("203.0.113.52"), b.app, codes[i], "")
		return err
	})), map[access.Code]int{"ok": 15})
}
