package access

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"time"
)

// Throttling: every path that checks a secret counts its failures and,
// past a number of free failures, makes the next attempt wait, doubling the
// wait with each further failure. A throttled attempt is refused before any
// hash is computed (429 too_many_attempts with Retry-After), and is not
// counted. An attempt that goes ahead is counted at once, in the same step
// as its check (see throttler.go), and forgiven if it succeeds, so that
// attempts sent at once share the free ones. The counters:
//
//   - per account and address: the owner mistyping from their machine;
//   - per address, across accounts: credential stuffing from one place;
//   - per account, across addresses, with a higher bound: a distributed
//     attack on one account. It is skipped for an address or hardware id
//     that has logged in to the account before, so an account under attack
//     still admits its owner;
//   - per address, for license codes and for application secrets;
//   - sign-ups per address (accounts created, not failures).
//
// Unknown and existing usernames are counted alike. The per-account
// counters and known sources live in the store, so every instance sees
// them; the per-address ones live in this instance's memory, bounded.

// ThrottlePolicy holds the thresholds. Zero fields take the defaults of
// DefaultThrottlePolicy.
type ThrottlePolicy struct {
	// AccountAddressFree is the failures of one account from one address
	// before waits begin. Default 10.
	AccountAddressFree int `json:"account_address_free,omitempty"`
	// AddressFree is the password failures of one address across accounts
	// before waits begin. Default 20.
	AddressFree int `json:"address_free,omitempty"`
	// AccountFree is the failures of one account across addresses before
	// waits begin for addresses and devices it does not know. Default 50.
	AccountFree int `json:"account_free,omitempty"`
	// CodeFree is the failed license codes of one address. Default 100:
	// a code has at least 80 bits, and the right one is never held back,
	// so this bounds only the work a client makes with wrong ones.
	CodeFree int `json:"code_free,omitempty"`
	// SecretFree is the wrong application secrets of one address.
	// Default 100: a secret has 256 bits, and the right one is never held
	// back, so this bounds only the work a client makes with wrong ones.
	SecretFree int `json:"secret_free,omitempty"`
	// SignUpsPerAddress is the accounts one address may create per
	// Window. Default 1000.
	SignUpsPerAddress int `json:"sign_ups_per_address,omitempty"`
	// FirstDelay is the wait after the first failure past the free ones;
	// each further failure doubles it. Default 1s.
	FirstDelay time.Duration `json:"first_delay,omitempty"`
	// MaxDelay caps the wait. Default 15m.
	MaxDelay time.Duration `json:"max_delay,omitempty"`
	// Window is how long a failure counts: a counter whose last failure is
	// older starts again from zero. Default 1h.
	Window time.Duration `json:"window,omitempty"`
}

// DefaultThrottlePolicy is what a careful operator would pick: a user who
// mistypes a few times never waits; a guesser gets a handful of tries per
// hour and account. (Auth0's brute-force protection allows 10 failures per
// account and address; Keygen 5 attempts a minute on its credential
// endpoints.) The sign-up quota stops one host
// from filling the store (at full hashing speed it could create some
// 290,000 accounts an hour), not a spammer with many addresses: schools,
// offices and carrier-grade NAT put hundreds of real buyers behind one
// address, so it is 1,000 an hour.
var DefaultThrottlePolicy = ThrottlePolicy{
	AccountAddressFree: 10, AddressFree: 20, AccountFree: 50, CodeFree: 100, SecretFree: 100,
	SignUpsPerAddress: 1000, FirstDelay: time.Second, MaxDelay: 15 * time.Minute, Window: time.Hour,
}

// valid reports whether p's settings make sense: nothing negative, and a
// maximum wait no shorter than the first.
func (p ThrottlePolicy) valid() bool {
	for _, n := range []int{p.AccountAddressFree, p.AddressFree, p.AccountFree, p.CodeFree, p.SecretFree, p.SignUpsPerAddress} {
		if n < 0 {
			return false
		}
	}
	return p.FirstDelay >= 0 && p.MaxDelay >= 0 && p.Window >= 0 && (p.MaxDelay == 0 || p.MaxDelay >= p.FirstDelay)
}

// Or returns p with its zero fields taken from q.
func (p ThrottlePolicy) Or(q ThrottlePolicy) ThrottlePolicy {
	pick := func(a, b int) int {
		if a > 0 {
			return a
		}
		return b
	}
	pickD := func(a, b time.Duration) time.Duration {
		if a > 0 {
			return a
		}
		return b
	}
	return ThrottlePolicy{
		AccountAddressFree: pick(p.AccountAddressFree, q.AccountAddressFree),
		AddressFree:        pick(p.AddressFree, q.AddressFree),
		AccountFree:        pick(p.AccountFree, q.AccountFree),
		CodeFree:           pick(p.CodeFree, q.CodeFree),
		SecretFree:         pick(p.SecretFree, q.SecretFree),
		SignUpsPerAddress:  pick(p.SignUpsPerAddress, q.SignUpsPerAddress),
		FirstDelay:         pickD(p.FirstDelay, q.FirstDelay),
		MaxDelay:           pickD(p.MaxDelay, q.MaxDelay),
		Window:             pickD(p.Window, q.Window),
	}
}

// wait is how long after the last of n failures the next attempt must
// wait, when the first free failures cost nothing: FirstDelay after the
// free ones, doubling with each further failure, at most MaxDelay.
func (p ThrottlePolicy) wait(n, free int) time.Duration {
	if n < free {
		return 0
	}
	d := p.FirstDelay
	for i := free; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	return min(d, p.MaxDelay)
}

// retryIn is how long from now an attempt must wait, given a counter's
// failures and the time of the last one; 0 means it may go ahead.
func (p ThrottlePolicy) retryIn(n, free int, last, now time.Time) time.Duration {
	if n == 0 || now.Sub(last) >= p.Window {
		return 0
	}
	return max(last.Add(p.wait(n, free)).Sub(now), 0)
}

// AttemptStore keeps the per-account failures and the sources (addresses
// and hardware ids) that logged in to an account, so that every instance
// throttles alike. Keys and sources are hashes. Each failure is its own
// record: no counter is read, changed and written back. (A forgiven
// attempt is a failure recorded under another key; see forgivenKey.)
type AttemptStore interface {
	AddFailure(ctx context.Context, key string, at time.Time) error
	// Failures counts the key's failures since a time and gives the last.
	Failures(ctx context.Context, key string, since time.Time) (int, time.Time, error)
	DeleteFailuresBefore(ctx context.Context, t time.Time) (int64, error)
	// AddKnownSource records that source logged in to the account key as
	// owner (a user ID, or an administrator's incarnation; see
	// sourceOwner); recording it again is harmless. Each (key, source,
	// owner) is its own record, never updated.
	AddKnownSource(ctx context.Context, key, source, owner string, at time.Time) error
	// KnownSourceOwners lists the owners source logged in to the account
	// key as, in any order; none when it never did.
	KnownSourceOwners(ctx context.Context, key, source string) ([]string, error)
}

// sourceOwner reports whether the owner a known source was recorded for
// (a user ID, or an administrator's incarnation) still holds the account,
// whose key is a username's: a deleted user's name may be taken again, and
// the new holder must not inherit the old one's known sources. thorough
// asks for the store's word (a source read from the store); otherwise
// caches may answer (a source this instance remembers, whose entries of a
// deleted user are dropped).
type sourceOwner func(ctx context.Context, owner string, thorough bool) bool

// errTooManyAttempts builds the throttling refusal.
func errTooManyAttempts(wait time.Duration) *Error {
	return &Error{Code: CodeTooManyAttempts, Detail: "Too many failed attempts; try again later.",
		RetryAfter: max(wait, time.Second)}
}

// errSignUpQuota refuses a sign-up past the address's quota: not a failure
// of the client's, so it says what it is.
func errSignUpQuota(wait time.Duration) *Error {
	return &Error{Code: CodeTooManyAttempts, Detail: "Too many accounts were created from this address; try again later.",
		RetryAfter: max(wait, time.Second)}
}

// throttleKey hashes the parts of a counter's key, so the store holds no
// username or address.
func throttleKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:20])
}

type clientAddressKey struct{}

// WithClientAddress returns ctx carrying the client's address as the
// server resolved it (honouring trusted proxies), which throttling keys on.
func WithClientAddress(ctx context.Context, addr string) context.Context {
	return &clientAddressContext{Context: ctx, addr: addr}
}

// clientAddressContext is a context carrying a client's address: what
// context.WithValue(ctx, clientAddressKey{}, addr) would be, in one
// allocation instead of two (the node and the boxed string), once per
// request.
type clientAddressContext struct {
	context.Context
	addr string
}

// Value answers clientAddressKey{} with c itself, a pointer (so no
// allocation), and any other key as the parent does.
func (c *clientAddressContext) Value(key any) any {
	if key == (clientAddressKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// String describes the context as context.WithValue's contexts do.
func (c *clientAddressContext) String() string {
	return fmt.Sprintf("%v.WithClientAddress(%q)", c.Context, c.addr)
}

// ClientAddress is the address WithClientAddress put in ctx, or "".
func ClientAddress(ctx context.Context) string {
	if c, ok := ctx.Value(clientAddressKey{}).(*clientAddressContext); ok {
		return c.addr
	}
	return ""
}

// clientNetwork is what throttling counts a client by: its IPv4 address,
// or the /64 of its IPv6 address (one subscriber's usual allocation, so
// that walking through a /64 is one client). Anything else is used as is.
func clientNetwork(ctx context.Context) string {
	addr := ClientAddress(ctx)
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	if ip.Is4() {
		// ParseAddr takes only the canonical dotted form of an IPv4
		// address, which is addr itself: no String to allocate.
		return addr
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}

// deviceSource is the hardware id that may make a login's source known to
// an account: only with device authentication on, where it names one of
// the user's registered device slots. Without it, a hardware id is just a
// value the client chose.
func deviceSource(app *App, hwid string) string {
	if !app.DeviceAuth {
		return ""
	}
	return hwid
}
