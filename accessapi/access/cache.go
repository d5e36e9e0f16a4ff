package access

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// expiringCache is a bounded map whose entries expire after a fixed time,
// or, for a cache that follows a change feed, whenever the feed last read
// is no more than that time old (cacheTrust). When full, it drops expired
// entries, then arbitrary ones: it is a cache of reads, so losing an entry
// only costs a store read.
//
// A read of the store that fills the cache takes a stamp first and stores
// with it (setStamped): an eviction in between makes the stamp stale, so a
// value read before a change never outlives the change's eviction.
type expiringCache[K comparable, V any] struct {
	mu    sync.RWMutex
	ttl   time.Duration
	max   int
	now   func() time.Time
	items map[K]cached[V]
	trust *cacheTrust
	// owner, when set, indexes the entries by the user they belong to,
	// so that removeOwner costs the user's entries, not the whole cache.
	owner func(V) string
	owned map[string][]K // a user has a few entries: a slice is smallest
	// evictions counts removals; it is the stamp of setStamped.
	evictions atomic.Uint64

	name     CacheName // for the observer
	observer Observer
}

type cached[V any] struct {
	value V
	// expires is in Unix nanoseconds: a third of a time.Time, in every
	// slot of a map of 100,000.
	expires int64
}

func newExpiringCache[K comparable, V any](ttl time.Duration, max int, now func() time.Time) *expiringCache[K, V] {
	return &expiringCache[K, V]{ttl: ttl, max: max, now: now, items: make(map[K]cached[V])}
}

// trusting makes the cache keep entries past their time while t holds.
func (c *expiringCache[K, V]) trusting(t *cacheTrust) *expiringCache[K, V] {
	c.trust = t
	return c
}

// ownedBy indexes the entries by owner(value).
func (c *expiringCache[K, V]) ownedBy(owner func(V) string) *expiringCache[K, V] {
	c.owner, c.owned = owner, map[string][]K{}
	return c
}

func (c *expiringCache[K, V]) get(k K) (V, bool) {
	if c.ttl <= 0 {
		var zero V
		return zero, false
	}
	c.mu.RLock()
	e, ok := c.items[k]
	c.mu.RUnlock()
	if !ok {
		c.reportLookup(false)
		var zero V
		return zero, false
	}
	if now := c.now(); now.UnixNano() >= e.expires && !c.trust.holds(now) {
		c.reportLookup(false)
		var zero V
		return zero, false
	}
	c.reportLookup(true)
	return e.value, true
}

// stamp is taken before reading what setStamped will store.
func (c *expiringCache[K, V]) stamp() uint64 { return c.evictions.Load() }

func (c *expiringCache[K, V]) set(k K, v V) { c.store(k, v, 0, false) }

// setStamped stores v unless something was evicted since stamp was taken.
func (c *expiringCache[K, V]) setStamped(k K, v V, stamp uint64) { c.store(k, v, stamp, true) }

func (c *expiringCache[K, V]) store(k K, v V, stamp uint64, stamped bool) {
	if c.ttl <= 0 {
		return
	}
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if stamped && c.evictions.Load() != stamp {
		return
	}
	if _, ok := c.items[k]; !ok && len(c.items) >= c.max {
		c.shrinkLocked(now)
	}
	c.deleteLocked(k)
	c.items[k] = cached[V]{value: v, expires: now.Add(c.ttl).UnixNano()}
	if c.owner != nil {
		o := c.owner(v)
		c.owned[o] = append(c.owned[o], k)
	}
}

// deleteLocked removes k and its place in the owner index.
func (c *expiringCache[K, V]) deleteLocked(k K) {
	e, ok := c.items[k]
	if !ok {
		return
	}
	delete(c.items, k)
	if c.owner != nil {
		o := c.owner(e.value)
		keys := c.owned[o]
		for i, x := range keys {
			if x == k {
				keys[i] = keys[len(keys)-1]
				keys = keys[:len(keys)-1]
				break
			}
		}
		if len(keys) == 0 {
			delete(c.owned, o)
		} else {
			c.owned[o] = keys
		}
	}
}

// shrinkLocked frees a sixty-fourth of the capacity: expired entries
// first (unless the feed vouches for them), then arbitrary ones. A small
// batch keeps a working set just above the bound mostly cached.
func (c *expiringCache[K, V]) shrinkLocked(now time.Time) {
	target := c.max - c.max/64 - 1
	if !c.trust.holds(now) {
		for k, e := range c.items {
			if now.UnixNano() >= e.expires {
				c.deleteLocked(k)
			}
		}
	}
	for k := range c.items {
		if len(c.items) <= target {
			break
		}
		c.deleteLocked(k)
	}
}

func (c *expiringCache[K, V]) remove(k K) {
	c.mu.Lock()
	c.evictions.Add(1)
	c.deleteLocked(k)
	c.mu.Unlock()
}

// removeOwner drops the entries of owner; the cache must be ownedBy.
func (c *expiringCache[K, V]) removeOwner(owner string) {
	c.mu.Lock()
	c.evictions.Add(1)
	for _, k := range slices.Clone(c.owned[owner]) {
		c.deleteLocked(k)
	}
	c.mu.Unlock()
}

// removeIf drops the entries whose value matches.
func (c *expiringCache[K, V]) removeIf(match func(V) bool) {
	c.mu.Lock()
	c.evictions.Add(1)
	for k, e := range c.items {
		if match(e.value) {
			c.deleteLocked(k)
		}
	}
	c.mu.Unlock()
}

// clear drops every entry.
func (c *expiringCache[K, V]) clear() {
	c.mu.Lock()
	c.evictions.Add(1)
	clear(c.items)
	if c.owned != nil {
		clear(c.owned)
	}
	c.mu.Unlock()
}

func (c *expiringCache[K, V]) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.items)
}

// cacheTrust is how long the change feed vouches for cached entries: until
// the feed's last successful read plus the staleness bound. Without a feed
// (or once it stops answering) it vouches for nothing, and entries live
// their own time.
type cacheTrust struct {
	until atomic.Int64 // Unix nanoseconds; 0 vouches for nothing
}

// holds reports whether the feed vouches for entries at now.
func (t *cacheTrust) holds(now time.Time) bool {
	return t != nil && now.UnixNano() < t.until.Load()
}

// extend vouches for entries until u, never moving backwards.
func (t *cacheTrust) extend(u time.Time) {
	n := u.UnixNano()
	for {
		old := t.until.Load()
		if n <= old || t.until.CompareAndSwap(old, n) {
			return
		}
	}
}

// revoke stops vouching.
func (t *cacheTrust) revoke() { t.until.Store(0) }
