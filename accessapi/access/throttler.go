package access

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// throttler applies the throttling rules (see throttle.go) for a Service.
type throttler struct {
	global ThrottlePolicy
	store  AttemptStore
	now    func() time.Time
	memory *addressCounters
	// known remembers sources known to have logged in to an account (a
	// fact that never becomes false), so a returning user costs no read.
	known *expiringCache[string, struct{}]
	// held is told when a counter begins holding back (the Service's
	// emit), for the audit log.
	held func(ctx context.Context, e Event)
}

func newThrottler(global ThrottlePolicy, store AttemptStore, entries int, now func() time.Time) *throttler {
	return &throttler{global: global.Or(DefaultThrottlePolicy), store: store, now: now,
		memory: newAddressCounters(entries), known: newExpiringCache[string, struct{}](24*time.Hour, entries, now)}
}

func (t *throttler) policy(app *App) ThrottlePolicy { return app.Throttle.Or(t.global) }

// The in-memory counter kinds.
const (
	kindPair     = "pair"    // an account from an address
	kindPassword = "pw"      // password failures of an address
	kindCode     = "code"    // license code failures of an address
	kindSecret   = "secret"  // application secret failures of an address
	kindSignUp   = "sign-up" // accounts an address created
)

// checkPassword refuses a password attempt on account (a throttleKey) from
// addr, with hardware id hwid, while any of its counters makes it wait.
func (t *throttler) checkPassword(ctx context.Context, app *App, account, addr, hwid string) error {
	p, now := t.policy(app), t.now()
	hwid = deviceSource(app, hwid)
	wait := max(t.memory.retryIn(kindPair, app.ID, account+addr, p, p.AccountAddressFree, now),
		t.memory.retryIn(kindPassword, app.ID, addr, p, p.AddressFree, now))
	if wait > 0 {
		return errTooManyAttempts(wait)
	}
	if t.isKnown(ctx, account, addr, hwid) {
		return nil
	}
	n, last, err := t.store.Failures(ctx, account, now.Add(-p.Window))
	if err != nil {
		return wrapStore(err, "reading failed attempts")
	}
	if wait := p.retryIn(n, p.AccountFree, last, now); wait > 0 {
		return errTooManyAttempts(wait)
	}
	return nil
}

// failPassword counts a wrong password for account (a throttleKey) from
// addr; userID names the account's user when there is one.
func (t *throttler) failPassword(ctx context.Context, app *App, account, addr, userID string) error {
	now := t.now()
	p := t.policy(app)
	if n := t.memory.fail(kindPair, app.ID, account+addr, p, now); startsHolding(n, p.AccountAddressFree) {
		t.tell(ctx, app, ThrottledAccountAddress, account, userID, n)
	}
	if n := t.memory.fail(kindPassword, app.ID, addr, p, now); startsHolding(n, p.AddressFree) {
		t.tell(ctx, app, ThrottledAddress, addr, "", n)
	}
	if err := t.store.AddFailure(ctx, account, now); err != nil {
		return wrapStore(err, "recording a failed attempt")
	}
	// One more read per failure (which already cost a hash) tells when the
	// account's own counter begins holding back unknown sources.
	if n, _, err := t.store.Failures(ctx, account, now.Add(-p.Window)); err == nil && startsHolding(n, p.AccountFree) {
		t.tell(ctx, app, ThrottledAccount, account, userID, n)
	}
	return nil
}

// The counters of EventLoginThrottled (Event.Change).
const (
	ThrottledAccountAddress = "account_address" // an account from one address
	ThrottledAddress        = "address"         // password failures of an address
	ThrottledAccount        = "account"         // an account, from addresses it does not know
	ThrottledLicenseCode    = "license_code"    // license code failures of an address
)

// startsHolding reports whether the failure that brought a counter to n
// made it hold back the next attempt, after free failures. (Concurrent
// failures on several instances may tell it twice or not at all.)
func startsHolding(n, free int) bool { return n == max(free, 1) }

// tell emits EventLoginThrottled: target is the hashed account key or the
// address the counter holds back; never a password or code.
func (t *throttler) tell(ctx context.Context, app *App, counter, target, userID string, failures int) {
	if t.held == nil {
		return
	}
	t.held(ctx, Event{Kind: EventLoginThrottled, AppID: app.ID, UserID: userID, Target: target, Change: counter,
		After: map[string]any{"counter": counter, "failures": failures}})
}

// passwordOK records a verified password: the pair's failures are
// forgiven, and the address and hardware id become known to the account.
// The account's own counter is left to expire, so the owner's success does
// not reset an attacker's wait.
func (t *throttler) passwordOK(ctx context.Context, app *App, account, addr, hwid string) {
	t.memory.clear(kindPair, app.ID, account+addr)
	t.remember(ctx, account, addr, deviceSource(app, hwid))
}

// remember makes addr and hwid known sources of account.
func (t *throttler) remember(ctx context.Context, account, addr, hwid string) {
	for _, src := range sources(addr, hwid) {
		k := account + "/" + src
		if _, ok := t.known.get(k); ok {
			continue
		}
		// A failure to record only means a later check reads the store.
		if err := t.store.AddKnownSource(ctx, account, src, t.now()); err == nil {
			t.known.set(k, struct{}{})
		}
	}
}

func (t *throttler) isKnown(ctx context.Context, account, addr, hwid string) bool {
	for _, src := range sources(addr, hwid) {
		k := account + "/" + src
		if _, ok := t.known.get(k); ok {
			return true
		}
		if ok, err := t.store.IsKnownSource(ctx, account, src); err == nil && ok {
			t.known.set(k, struct{}{})
			return true
		}
	}
	return false
}

// sources are the hashed names of an address and a hardware id.
func sources(addr, hwid string) []string {
	var out []string
	if addr != "" {
		out = append(out, throttleKey("addr", addr))
	}
	if hwid != "" {
		out = append(out, throttleKey("hw", hwid))
	}
	return out
}

// checkCode refuses a license code attempt from addr while its failures
// make it wait; failCode counts an unknown or used code.
func (t *throttler) checkCode(app *App, addr string) error {
	p := t.policy(app)
	if wait := t.memory.retryIn(kindCode, app.ID, addr, p, p.CodeFree, t.now()); wait > 0 {
		return errTooManyAttempts(wait)
	}
	return nil
}

func (t *throttler) failCode(ctx context.Context, app *App, addr string) {
	p := t.policy(app)
	if n := t.memory.fail(kindCode, app.ID, addr, p, t.now()); startsHolding(n, p.CodeFree) {
		t.tell(ctx, app, ThrottledLicenseCode, addr, "", n)
	}
}

// checkSecret and failSecret do the same for application secrets, per
// address across keys. The application is not known yet, so the global
// policy applies.
func (t *throttler) checkSecret(addr string) error {
	p := t.global
	if wait := t.memory.retryIn(kindSecret, "", addr, p, p.SecretFree, t.now()); wait > 0 {
		return errTooManyAttempts(wait)
	}
	return nil
}

func (t *throttler) failSecret(addr string) { t.memory.fail(kindSecret, "", addr, t.global, t.now()) }

// checkSignUp refuses an account creation from addr once the address
// created SignUpsPerAddress accounts within Window; signedUp counts one.
func (t *throttler) checkSignUp(app *App, addr string) error {
	p := t.policy(app)
	if wait := t.memory.quotaWait(kindSignUp, app.ID, addr, p, t.now()); wait > 0 {
		return errTooManyAttempts(wait)
	}
	return nil
}

func (t *throttler) signedUp(app *App, addr string) {
	t.memory.count(kindSignUp, app.ID, addr, t.policy(app), t.now())
}

// addressCounters are this instance's per-address counters. They are
// sharded to keep the hot path's lock short, and bounded: past the bound,
// expired counters go first, then arbitrary ones, so a spray of addresses
// costs bounded memory (and can only evict per-address counters; the
// per-account ones are in the store). Requests without an address (calls
// from inside the process) are not counted.
type addressCounters struct {
	seed     maphash.Seed
	perShard int
	shards   [16]counterShard
}

type counterShard struct {
	mu sync.RWMutex
	m  map[string]counter
}

type counter struct {
	n           int
	first, last time.Time
}

func newAddressCounters(limit int) *addressCounters {
	c := &addressCounters{seed: maphash.MakeSeed(), perShard: max(limit/16, 64)}
	for i := range c.shards {
		c.shards[i].m = make(map[string]counter)
	}
	return c
}

func (c *addressCounters) shard(key string) *counterShard {
	return &c.shards[maphash.String(c.seed, key)%uint64(len(c.shards))]
}

func counterKey(kind, scope, addr string) string { return kind + "\x00" + scope + "\x00" + addr }

func (c *addressCounters) get(key string) (counter, bool) {
	s := c.shard(key)
	s.mu.RLock()
	v, ok := s.m[key]
	s.mu.RUnlock()
	return v, ok
}

func (c *addressCounters) retryIn(kind, scope, addr string, p ThrottlePolicy, free int, now time.Time) time.Duration {
	if addr == "" {
		return 0
	}
	v, ok := c.get(counterKey(kind, scope, addr))
	if !ok {
		return 0
	}
	return p.retryIn(v.n, free, v.last, now)
}

// quotaWait is the wait of a fixed-window quota of SignUpsPerAddress.
func (c *addressCounters) quotaWait(kind, scope, addr string, p ThrottlePolicy, now time.Time) time.Duration {
	if addr == "" {
		return 0
	}
	v, ok := c.get(counterKey(kind, scope, addr))
	if !ok || now.Sub(v.first) >= p.Window || v.n < p.SignUpsPerAddress {
		return 0
	}
	return v.first.Add(p.Window).Sub(now)
}

// fail counts a failure; count is the same for the quota, whose window
// starts at its first count.
func (c *addressCounters) fail(kind, scope, addr string, p ThrottlePolicy, now time.Time) int {
	return c.add(kind, scope, addr, now, func(v counter) bool { return now.Sub(v.last) >= p.Window })
}

func (c *addressCounters) count(kind, scope, addr string, p ThrottlePolicy, now time.Time) {
	_ = c.add(kind, scope, addr, now, func(v counter) bool { return now.Sub(v.first) >= p.Window })
}

// add counts one and returns the counter's new value (0 when addr is
// empty: nothing is counted).
func (c *addressCounters) add(kind, scope, addr string, now time.Time, stale func(counter) bool) int {
	if addr == "" {
		return 0
	}
	key := counterKey(kind, scope, addr)
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok || stale(v) {
		if !ok && len(s.m) >= c.perShard {
			c.shrinkLocked(s, now)
		}
		v = counter{first: now}
	}
	v.n++
	v.last = now
	s.m[key] = v
	return v.n
}

func (c *addressCounters) clear(kind, scope, addr string) {
	if addr == "" {
		return
	}
	key := counterKey(kind, scope, addr)
	if _, ok := c.get(key); !ok {
		return // the common case, under a read lock only
	}
	s := c.shard(key)
	s.mu.Lock()
	delete(s.m, key)
	s.mu.Unlock()
}

// shrinkLocked frees an eighth of a full shard: counters idle for longer
// than the longest window first, then arbitrary ones.
func (c *addressCounters) shrinkLocked(s *counterShard, now time.Time) {
	target := c.perShard - c.perShard/8 - 1
	for k, v := range s.m {
		if now.Sub(v.last) >= DefaultThrottlePolicy.MaxDelay+DefaultThrottlePolicy.Window {
			delete(s.m, k)
		}
	}
	for k := range s.m {
		if len(s.m) <= target {
			return
		}
		delete(s.m, k)
	}
}
