package access

import (
	"sync"
	"time"
)

// expiringCache is a bounded map whose entries expire after a fixed time.
// When full, it drops expired entries, then arbitrary ones: it is a cache of
// reads, so losing an entry only costs a store read.
type expiringCache[K comparable, V any] struct {
	mu    sync.RWMutex
	ttl   time.Duration
	max   int
	now   func() time.Time
	items map[K]cached[V]

	name     CacheName // for the observer
	observer Observer
}

type cached[V any] struct {
	value   V
	expires time.Time
}

func newExpiringCache[K comparable, V any](ttl time.Duration, max int, now func() time.Time) *expiringCache[K, V] {
	return &expiringCache[K, V]{ttl: ttl, max: max, now: now, items: make(map[K]cached[V])}
}

func (c *expiringCache[K, V]) get(k K) (V, bool) {
	if c.ttl <= 0 {
		var zero V
		return zero, false
	}
	c.mu.RLock()
	e, ok := c.items[k]
	c.mu.RUnlock()
	if !ok || !c.now().Before(e.expires) {
		c.reportLookup(false)
		var zero V
		return zero, false
	}
	c.reportLookup(true)
	return e.value, true
}

func (c *expiringCache[K, V]) set(k K, v V) {
	if c.ttl <= 0 {
		return
	}
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.items) >= c.max {
		c.shrinkLocked(now)
	}
	c.items[k] = cached[V]{value: v, expires: now.Add(c.ttl)}
}

// shrinkLocked frees at least an eighth of the capacity.
func (c *expiringCache[K, V]) shrinkLocked(now time.Time) {
	target := c.max - c.max/8 - 1
	for k, e := range c.items {
		if !now.Before(e.expires) {
			delete(c.items, k)
		}
	}
	for k := range c.items {
		if len(c.items) <= target {
			break
		}
		delete(c.items, k)
	}
}

func (c *expiringCache[K, V]) remove(k K) {
	c.mu.Lock()
	delete(c.items, k)
	c.mu.Unlock()
}

// removeIf drops the entries whose value matches.
func (c *expiringCache[K, V]) removeIf(match func(V) bool) {
	c.mu.Lock()
	for k, e := range c.items {
		if match(e.value) {
			delete(c.items, k)
		}
	}
	c.mu.Unlock()
}

func (c *expiringCache[K, V]) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.items)
}
