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
	// known remembers, by account and source, the owner (see
	// sourceOwner) a source is known to have logged in to the account as,
	// so a returning user costs no read of the known sources. Entries of
	// a deleted user are dropped (forgetSourcesOf).
	known *expiringCache[string, string]
	// held is told when a counter begins holding back (the Service's
	// emit), for the audit log.
	held func(ctx context.Context, e Event)
}

func newThrottler(global ThrottlePolicy, store AttemptStore, entries int, now func() time.Time) *throttler {
	return &throttler{global: global.Or(DefaultThrottlePolicy), store: store, now: now,
		memory: newAddressCounters(entries), known: newExpiringCache[string, string](24*time.Hour, entries, now).ownedBy(func(owner string) string { return owner })}
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

// A password attempt is counted when it is checked (reservePassword), not
// after the hash: the check and the count are one step, so that N attempts
// sent at once are judged as if they came one after another, and only the
// free ones are evaluated. The attempt then ends in exactly one of failed,
// succeeded or release (an error that says nothing about the password).
//
// In memory, the (account, address) and address counters hold the attempt
// as pending under their shard's lock. In the store, an attempt from a
// source the account does not know is recorded as a failure before the
// hash; a success (or a refusal at the gate, below) then records a
// forgiveness of it under the account's forgiveness key, with the same
// time, so that both leave the window together. Each is an insert of its
// own document: nothing is read, changed and written back, which keeps the
// count right on a store without transactions (MongoDB).
type passwordAttempt struct {
	t       *throttler
	app     *App
	p       ThrottlePolicy
	account string
	addr    string
	// stored is set when the attempt is recorded in the store (a source
	// the account does not know); at is the record's time and n the
	// account's count with it.
	stored bool
	at     time.Time
	n      int
	done   bool
}

// reservePassword checks and counts a password attempt on account (a
// throttleKey) from addr, with hardware id hwid: it is refused while any
// of its counters makes it wait (counting the attempts in flight as
// failures), and otherwise counted. owners tells whether the owner a
// known source was remembered for still holds the account.
func (t *throttler) reservePassword(ctx context.Context, app *App, account, addr, hwid string, owners sourceOwner) (passwordAttempt, error) {
	p, now := t.policy(app), t.now()
	a := passwordAttempt{t: t, app: app, p: p, account: account, addr: addr}
	if wait := t.memory.reserve(ctx, kindPair, app.ID, pairKey(account, addr), p, p.AccountAddressFree, t.now); wait > 0 {
		return a, errTooManyAttempts(wait)
	}
	if wait := t.memory.reserve(ctx, kindPassword, app.ID, addr, p, p.AddressFree, t.now); wait > 0 {
		t.memory.settle(kindPair, app.ID, pairKey(account, addr), p, p.AccountAddressFree, now, forgiven)
		return a, errTooManyAttempts(wait)
	}
	hwid = deviceSource(app, hwid)
	if addr == "" && hwid == "" {
		// A call from inside the process: checked against the account's
		// counter, and a failure counted after the hash.
		n, last, err := t.storeFailures(ctx, account, now.Add(-p.Window), p.AccountFree-1)
		if err != nil {
			return a, err
		}
		if wait := p.retryIn(n, p.AccountFree, last, now); wait > 0 {
			return a, errTooManyAttempts(wait)
		}
		return a, nil
	}
	if t.isKnown(ctx, account, addr, hwid, owners) {
		return a, nil
	}
	n, err := t.reserveStored(ctx, p, account, now)
	if err != nil {
		a.settleMemory(forgiven)
		return a, err
	}
	a.stored, a.at, a.n = true, now, n
	return a, nil
}

// pairKey names the (account, address) counter; a request without an
// address (from inside the process) has none, so it is not counted.
func pairKey(account, addr string) string {
	if addr == "" {
		return ""
	}
	return account + addr
}

// reserveStored counts an attempt from an unknown source in the account's
// stored counter: a read refuses a waiting account without writing; then
// the attempt is recorded, and the count read again (with every attempt
// recorded meanwhile, on any instance) decides. It goes ahead when the
// count with it is within the free failures, or, past them, when no other
// attempt was recorded since the first read. Otherwise it is forgiven and
// refused: attempts that race are refused rather than all let through.
func (t *throttler) reserveStored(ctx context.Context, p ThrottlePolicy, account string, now time.Time) (int, error) {
	free, since := p.AccountFree, now.Add(-p.Window)
	n1, last, err := t.storeFailures(ctx, account, since, free-1)
	if err != nil {
		return 0, err
	}
	if wait := p.retryIn(n1, free, last, now); wait > 0 {
		return 0, errTooManyAttempts(wait)
	}
	if err := t.store.AddFailure(ctx, account, now); err != nil {
		return 0, wrapStore(err, "recording an attempt")
	}
	limit := max(free, n1+1)
	n2, _, err := t.storeFailures(ctx, account, since, limit)
	if err == nil && n2 <= limit {
		return n2, nil
	}
	t.forgive(ctx, account, now)
	if err != nil {
		return 0, err
	}
	return 0, errTooManyAttempts(p.wait(n2, free))
}

// storeFailures is the account's count of failures since a time, less the
// forgiven ones, and the time of the last record (forgiven or not, so a
// wait may start a little later than the last failure). Forgiveness is read
// only when the count exceeds atMost, and then before the failures are
// read again, so that the count is never below the truth.
func (t *throttler) storeFailures(ctx context.Context, account string, since time.Time, atMost int) (int, time.Time, error) {
	n, last, err := t.store.Failures(ctx, account, since)
	if err != nil || n <= atMost {
		return n, last, wrapStore(err, "reading failed attempts")
	}
	f, _, err := t.store.Failures(ctx, forgivenKey(account), since)
	if err != nil {
		return 0, time.Time{}, wrapStore(err, "reading failed attempts")
	}
	if f == 0 {
		return n, last, nil
	}
	if n, last, err = t.store.Failures(ctx, account, since); err != nil {
		return 0, time.Time{}, wrapStore(err, "reading failed attempts")
	}
	return max(n-f, 0), last, nil
}

// forgive records that the attempt recorded at this time was no failure.
// It is written even when the request was cancelled; a forgiveness that is
// lost leaves one failure counted.
func (t *throttler) forgive(ctx context.Context, account string, at time.Time) {
	_ = t.store.AddFailure(context.WithoutCancel(ctx), forgivenKey(account), at)
}

// forgivenKey is the key under which an account's forgiven attempts are
// recorded (as failures of that key).
func forgivenKey(account string) string { return throttleKey("forgiven", account) }

// failed counts the attempt as a wrong password; userID names the
// account's user when there is one.
func (a *passwordAttempt) failed(ctx context.Context, userID string) error {
	if a.done {
		return nil
	}
	a.done = true
	t, app, p := a.t, a.app, a.p
	now := t.now()
	if n := t.memory.settle(kindPair, app.ID, pairKey(a.account, a.addr), p, p.AccountAddressFree, now, failed); startsHolding(n, p.AccountAddressFree) {
		t.tell(ctx, app, ThrottledAccountAddress, a.account, userID, n)
	}
	if n := t.memory.settle(kindPassword, app.ID, a.addr, p, p.AddressFree, now, failed); startsHolding(n, p.AddressFree) {
		t.tell(ctx, app, ThrottledAddress, a.addr, "", n)
	}
	n := a.n
	if !a.stored {
		// A known source (or a call from inside the process) is not held
		// back by the account's counter, so its failure is recorded now.
		if err := t.store.AddFailure(ctx, a.account, now); err != nil {
			return wrapStore(err, "recording a failed attempt")
		}
		// One more read per failure (which already cost a hash) tells when
		// the account's own counter begins holding back unknown sources.
		var err error
		if n, _, err = t.storeFailures(ctx, a.account, now.Add(-p.Window), p.AccountFree-1); err != nil {
			n = 0
		}
	}
	if startsHolding(n, p.AccountFree) {
		t.tell(ctx, app, ThrottledAccount, a.account, userID, n)
	}
	return nil
}

// succeeded records a verified password of owner (a sourceOwner's name of
// the account's holder): the attempt is forgiven, the pair's failures too,
// and the address and hardware id become known to the account as owner.
// The account's own counter is left to expire, so the owner's success does
// not reset an attacker's wait.
func (a *passwordAttempt) succeeded(ctx context.Context, hwid, owner string) {
	if a.done {
		return
	}
	a.done = true
	a.settleMemory(cleared)
	if a.stored {
		a.t.forgive(ctx, a.account, a.at)
	}
	a.t.remember(ctx, a.account, a.addr, deviceSource(a.app, hwid), owner)
}

// release ends an attempt that neither failed nor succeeded (an error on
// the way): it is forgiven. It does nothing after failed or succeeded, so
// it can be deferred.
func (a *passwordAttempt) release(ctx context.Context) {
	if a.done || a.t == nil {
		return
	}
	a.done = true
	a.settleMemory(forgiven)
	if a.stored {
		a.t.forgive(ctx, a.account, a.at)
	}
}

func (a *passwordAttempt) settleMemory(how settlement) {
	now := a.t.now()
	a.t.memory.settle(kindPair, a.app.ID, pairKey(a.account, a.addr), a.p, a.p.AccountAddressFree, now, how)
	if how == cleared {
		how = forgiven // a success forgives the pair, not the address
	}
	a.t.memory.settle(kindPassword, a.app.ID, a.addr, a.p, a.p.AddressFree, now, how)
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

// remember makes addr and hwid known sources of account, for owner.
func (t *throttler) remember(ctx context.Context, account, addr, hwid, owner string) {
	for _, src := range sources(addr, hwid) {
		k := account + "/" + src
		if o, ok := t.known.get(k); ok && o == owner {
			continue
		}
		// A failure to record only means a later check reads the store.
		if err := t.store.AddKnownSource(ctx, account, src, owner, t.now()); err == nil {
			t.known.set(k, owner)
		}
	}
}

// isKnown reports whether addr or hwid logged in to account as an owner
// that still holds it. A username outlives its user (a deleted user's name
// may be taken again), so a source is known to an owner, not to the name:
// the sources of a deleted user do not relax the throttling of the next
// user of the name.
func (t *throttler) isKnown(ctx context.Context, account, addr, hwid string, owners sourceOwner) bool {
	for _, src := range sources(addr, hwid) {
		k := account + "/" + src
		if o, ok := t.known.get(k); ok {
			if owners(ctx, o, false) {
				return true
			}
			t.known.remove(k)
		}
		recorded, err := t.store.KnownSourceOwners(ctx, account, src)
		if err != nil {
			continue
		}
		for _, o := range recorded {
			if owners(ctx, o, true) {
				t.known.set(k, o)
				return true
			}
		}
	}
	return false
}

// forgetSourcesOf drops what this instance remembers of owner's known
// sources (a deleted user's).
func (t *throttler) forgetSourcesOf(owner string) { t.known.removeOwner(owner) }

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

// A codeAttempt is a license code checked for an address. Only a code
// that is unknown or used counts, after its check (refuse), as for
// application secrets: the right code is never held back. A code carries
// at least 80 random bits (license.go), so a held address gains nothing by
// guessing on, while holding back the right one let a client that guessed
// lock out a buyer behind the same address (a school, an office,
// carrier-grade NAT). The counter bounds the work of wrong codes, which
// past CodeFree are answered 429 instead of 401.
type codeAttempt struct {
	t    *throttler
	app  *App
	addr string
}

// codeAttempt starts the check of a license code sent from addr.
func (t *throttler) codeAttempt(app *App, addr string) codeAttempt {
	return codeAttempt{t: t, app: app, addr: addr}
}

// refuse counts an unknown or used code and returns refusal, the code's
// own answer, unless the address is held back already: then it returns
// the wait the client gets instead, and counts nothing more.
func (a codeAttempt) refuse(ctx context.Context, refusal error) error {
	p := a.t.policy(a.app)
	wait, n := a.t.memory.failUnlessHeld(kindCode, a.app.ID, a.addr, p, p.CodeFree, a.t.now())
	if wait > 0 {
		return errTooManyAttempts(wait)
	}
	if startsHolding(n, p.CodeFree) {
		a.t.tell(ctx, a.app, ThrottledLicenseCode, a.addr, "", n)
	}
	return refusal
}

// missedSecret throttles the wrong application and seller key secrets of
// an address, across keys (the application is not known, so the global
// policy applies): while the address is held back it refuses (not
// counted), otherwise it counts the miss and returns nil. Only misses come
// here: the right secret is never held back. Unlike passwords and codes, a
// miss is counted after the check: a secret is 256 random bits compared by
// its SHA-256 (no slow step to race through), and a burst of guesses gains
// nothing.
func (t *throttler) missedSecret(addr string) error {
	p := t.global
	if wait, _ := t.memory.failUnlessHeld(kindSecret, "", addr, p, p.SecretFree, t.now()); wait > 0 {
		return errTooManyAttempts(wait)
	}
	return nil
}

// reserveSignUp refuses an account creation from addr once the address
// created (or is creating) SignUpsPerAddress accounts within Window, and
// otherwise counts it at once: the reservation is the count. A sign-up
// that stops before an account exists gives it back (signUpAttempt.release).
func (t *throttler) reserveSignUp(app *App, addr string) (signUpAttempt, error) {
	p := t.policy(app)
	first, wait := t.memory.reserveQuota(kindSignUp, app.ID, addr, p, t.now())
	if wait > 0 {
		return signUpAttempt{}, errSignUpQuota(wait)
	}
	return signUpAttempt{t: t, app: app, addr: addr, first: first}, nil
}

// A signUpAttempt is a counted sign-up; keep ends it as counted (an account
// was created, or a taken name was tried), release gives it back.
type signUpAttempt struct {
	t     *throttler
	app   *App
	addr  string
	first time.Time
	done  bool
}

func (a *signUpAttempt) keep() { a.done = true }

func (a *signUpAttempt) release() {
	if a.done || a.t == nil {
		return
	}
	a.done = true
	a.t.memory.unreserveQuota(kindSignUp, a.app.ID, a.addr, a.first)
}

// addressCounters are this instance's per-address counters. They are
// sharded to keep the hot path's lock short, and bounded: past the bound,
// expired counters go first, then those that hold no one back, then
// arbitrary ones, so a spray of addresses costs bounded memory (and can
// only evict per-address counters; the per-account ones are in the store).
// Requests without an address (calls from inside the process) are not
// counted.
type addressCounters struct {
	seed     maphash.Seed
	perShard int
	shards   [16]counterShard
}

type counterShard struct {
	mu sync.RWMutex
	m  map[string]counter
}

// A counter holds n failures (or, for a quota, n counts), the last at
// last, and pending attempts in flight, counted when they were checked and
// not yet settled. holds is when it stops holding back an attempt, as of
// its last change (zero: it holds back no one); eviction spares those that
// hold back.
type counter struct {
	n, pending  int
	first, last time.Time
	holds       time.Time
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

// wait is how long from now an attempt on v must wait: the attempts
// in flight count as failures that happen now, so that, of attempts sent
// at once, only the free ones go ahead (past them, one at a time).
func (v counter) wait(p ThrottlePolicy, free int, now time.Time) time.Duration {
	last := v.last
	if v.pending > 0 {
		last = now
	}
	return p.retryIn(v.n+v.pending, free, last, now)
}

// fail counts a failure at now; past the free ones, the counter holds
// back the next attempt until its wait ends.
func (v *counter) fail(p ThrottlePolicy, free int, now time.Time) {
	v.expire(p, now)
	v.n++
	v.last = now
	if v.n >= free {
		v.holds = now.Add(p.wait(v.n, free))
	}
}

// expire forgets failures older than the window.
func (v *counter) expire(p ThrottlePolicy, now time.Time) {
	if v.n > 0 && now.Sub(v.last) >= p.Window {
		v.n, v.holds = 0, time.Time{}
	}
}

// reserve refuses an attempt while the counter's failures make it wait,
// and otherwise counts it as pending, in one step under the shard's lock.
// While the attempts in flight would use up the rest of the free
// allowance (or, past it, while one is in flight), it waits for them to
// end, up to maxPendingWait and ctx, instead of refusing: of attempts sent
// at once only the free ones are evaluated, and when those fail the rest
// are refused, but a burst of good ones (several logins of one account, a
// program's parallel requests with password headers) all go through. The
// attempt must be settled (settle) once its outcome is known.
func (c *addressCounters) reserve(ctx context.Context, kind, scope, addr string, p ThrottlePolicy, free int, clock func() time.Time) time.Duration {
	if addr == "" {
		return 0
	}
	key := counterKey(kind, scope, addr)
	s := c.shard(key)
	var give time.Time // when to stop waiting, set by the first wait
	for {
		now := clock()
		s.mu.Lock()
		v, ok := s.m[key]
		v.expire(p, now)
		if wait := p.retryIn(v.n, free, v.last, now); wait > 0 {
			s.mu.Unlock()
			return wait
		}
		if v.pending == 0 || v.n+v.pending < free {
			if !ok && len(s.m) >= c.perShard {
				c.shrinkLocked(s, now)
			}
			v.pending++
			s.m[key] = v
			s.mu.Unlock()
			return 0
		}
		s.mu.Unlock()
		if give.IsZero() {
			give = time.Now().Add(maxPendingWait)
		}
		if !sleepUntilNextPoll(ctx, give) {
			return time.Second
		}
	}
}

// maxPendingWait bounds how long an attempt waits for the attempts in
// flight before it (a password hash each) to end.
const maxPendingWait = 5 * time.Second

// pendingPoll is how often a waiting attempt looks again.
const pendingPoll = 5 * time.Millisecond

// sleepUntilNextPoll sleeps one pendingPoll; false when give has passed or
// ctx ended.
func sleepUntilNextPoll(ctx context.Context, give time.Time) bool {
	if !time.Now().Before(give) {
		return false
	}
	t := time.NewTimer(pendingPoll)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// How an attempt counted by reserve ends.
type settlement int

const (
	failed   settlement = iota // a failure: counted, the wait starts now
	forgiven                   // not a failure: as if it never came
	cleared                    // a success that forgives the counter's failures too
)

// settle ends a pending attempt and returns the counter's failures (0
// when addr is empty: nothing is counted).
func (c *addressCounters) settle(kind, scope, addr string, p ThrottlePolicy, free int, now time.Time, how settlement) int {
	if addr == "" {
		return 0
	}
	key := counterKey(kind, scope, addr)
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok && how != failed {
		return 0 // evicted meanwhile, or cleared by a success
	}
	v.pending = max(v.pending-1, 0)
	switch how {
	case failed:
		if !ok && len(s.m) >= c.perShard {
			c.shrinkLocked(s, now)
		}
		v.fail(p, free, now)
	case cleared:
		v.n, v.holds = 0, time.Time{}
	}
	if v.n == 0 && v.pending == 0 {
		delete(s.m, key)
		return 0
	}
	s.m[key] = v
	return v.n
}

// failUnlessHeld counts a failure that was not reserved (application
// secrets, license codes) and returns the counter's failures, unless the
// counter holds the address back: then it returns the wait and counts
// nothing. Both in one step under the shard's lock, so that of failures
// that come at once only the free ones are counted as such. Nothing is
// counted when addr is empty.
func (c *addressCounters) failUnlessHeld(kind, scope, addr string, p ThrottlePolicy, free int, now time.Time) (time.Duration, int) {
	if addr == "" {
		return 0, 0
	}
	key := counterKey(kind, scope, addr)
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if wait := v.wait(p, free, now); ok && wait > 0 {
		return wait, v.n
	}
	if !ok && len(s.m) >= c.perShard {
		c.shrinkLocked(s, now)
	}
	v.fail(p, free, now)
	s.m[key] = v
	return 0, v.n
}

// reserveQuota counts one against a fixed-window quota of
// SignUpsPerAddress, whose window starts at its first count, unless the
// quota is used up: then it returns the wait until the window ends. first
// names the window the count went to, for unreserveQuota.
func (c *addressCounters) reserveQuota(kind, scope, addr string, p ThrottlePolicy, now time.Time) (first time.Time, wait time.Duration) {
	if addr == "" {
		return time.Time{}, 0
	}
	key := counterKey(kind, scope, addr)
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok || now.Sub(v.first) >= p.Window {
		if !ok && len(s.m) >= c.perShard {
			c.shrinkLocked(s, now)
		}
		v = counter{first: now}
	}
	if v.n >= p.SignUpsPerAddress {
		return time.Time{}, v.first.Add(p.Window).Sub(now)
	}
	v.n++
	v.last = now
	if v.n >= p.SignUpsPerAddress {
		v.holds = v.first.Add(p.Window)
	}
	s.m[key] = v
	return v.first, 0
}

// unreserveQuota gives back a count of the window that began at first
// (nothing when that window is over).
func (c *addressCounters) unreserveQuota(kind, scope, addr string, first time.Time) {
	if addr == "" {
		return
	}
	key := counterKey(kind, scope, addr)
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok || !v.first.Equal(first) || v.n == 0 {
		return
	}
	v.n--
	v.holds = time.Time{}
	s.m[key] = v
}

// shrinkLocked frees an eighth of a full shard: counters idle for longer
// than the longest window first, then those that hold no one back (no
// attempt in flight, no wait running), then arbitrary ones.
func (c *addressCounters) shrinkLocked(s *counterShard, now time.Time) {
	target := c.perShard - c.perShard/8 - 1
	for k, v := range s.m {
		if v.pending == 0 && now.Sub(v.last) >= DefaultThrottlePolicy.MaxDelay+DefaultThrottlePolicy.Window {
			delete(s.m, k)
		}
	}
	for k, v := range s.m {
		if len(s.m) <= target {
			return
		}
		if v.pending == 0 && !now.Before(v.holds) {
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
