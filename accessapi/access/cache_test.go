package access

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

func TestExpiringCache_EntriesExpireAndSizeIsBounded(t *testing.T) {
	now := time.Unix(0, 0)
	c := newExpiringCache[int, string](time.Second, 64, func() time.Time { return now })
	c.set(1, "a")
	if v, ok := c.get(1); !ok || v != "a" {
		t.Fatalf("fresh entry: got %q, %v", v, ok)
	}
	now = now.Add(time.Second)
	if _, ok := c.get(1); ok {
		t.Fatal("entry outlived its ttl")
	}
	for i := 0; i < 1000; i++ {
		c.set(i, "x")
	}
	if n := c.len(); n > 64 {
		t.Fatalf("cache holds %d entries, bound is 64", n)
	}
	c.set(5000, "y")
	c.removeIf(func(v string) bool { return v == "y" })
	if _, ok := c.get(5000); ok {
		t.Fatal("removeIf kept a matching entry")
	}
}

// TestExpiringCache_FeedTrustKeepsEntriesUntilEvicted checks the three
// ways an entry leaves a cache that follows a change feed: not on a timer
// while the feed vouches, on its own time once the feed stops vouching,
// and at once when evicted, by key or by owner.
func TestExpiringCache_FeedTrustKeepsEntriesUntilEvicted(t *testing.T) {
	now := time.Unix(0, 0)
	trust := new(cacheTrust)
	c := newExpiringCache[string, *Session](time.Second, 64, func() time.Time { return now }).
		trusting(trust).ownedBy(func(s *Session) string { return s.UserID })
	c.set("a", &Session{UserID: "u1"})
	c.set("b", &Session{UserID: "u1"})
	c.set("c", &Session{UserID: "u2"})
	trust.extend(now.Add(time.Hour))
	now = now.Add(30 * time.Minute)
	if _, ok := c.get("a"); !ok {
		t.Fatal("the feed vouches, yet the entry expired on its timer")
	}
	c.removeOwner("u1")
	if _, ok := c.get("a"); ok {
		t.Fatal("removeOwner kept an entry of the owner")
	}
	if _, ok := c.get("c"); !ok {
		t.Fatal("removeOwner dropped another owner's entry")
	}
	if n := len(c.owned); n != 1 {
		t.Fatalf("owner index holds %d owners, want 1", n)
	}
	trust.revoke()
	if _, ok := c.get("c"); ok {
		t.Fatal("without the feed, an entry outlived its ttl")
	}
}

// TestExpiringCache_AFillReadBeforeAnEvictionIsNotStored checks the stamp:
// a value read from the store before an eviction of the cache would
// otherwise be stored after it and outlive the change.
func TestExpiringCache_AFillReadBeforeAnEvictionIsNotStored(t *testing.T) {
	c := newExpiringCache[string, string](time.Minute, 64, time.Now)
	stamp := c.stamp()
	c.remove("k") // the change's eviction, while the fill's read is in flight
	c.setStamped("k", "old", stamp)
	if _, ok := c.get("k"); ok {
		t.Fatal("a value read before the eviction was stored after it")
	}
	c.setStamped("k", "new", c.stamp())
	if v, ok := c.get("k"); !ok || v != "new" {
		t.Fatalf("a fresh fill: got %q, %v", v, ok)
	}
}

// TestCaches_OneHundredThousandUsersFitTheMemoryBudget fills the caches a
// token request uses (session, user state) for 100,000 users, the default
// bound, and reports the heap they take; the budget is 200 MiB of
// RSS for the whole server.
func TestCaches_OneHundredThousandUsersFitTheMemoryBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 100,000 entries per cache")
	}
	const users = 100_000
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	svc := NewService(nil, Config{})
	now := time.Now()
	for i := range users {
		id := fmt.Sprintf("%08d-0000-4000-8000-%012d", i, i)
		// As Service.session caches it: keyed by the digest, without the hash.
		svc.sessions.set(digestOf(NewSessionToken()), &Session{AppID: "8b0f2a4e-0000-4000-8000-000000000000", UserID: id, CreatedAt: now, ExpiresAt: now.Add(24 * time.Hour)})
		exp := now.Add(time.Hour)
		svc.users.set(id, &userState{user: &User{ID: id, AppID: "8b0f2a4e-0000-4000-8000-000000000000", Username: fmt.Sprintf("user%d", i), CreatedAt: now},
			membership: Membership{ExpiresAt: &exp}})
	}
	used := heap() - before
	runtime.KeepAlive(svc)
	t.Logf("caches of %d sessions and user states: %.1f MiB of heap (%d bytes a user)", users, float64(used)/(1<<20), used/users)
	if used > 150<<20 {
		t.Fatalf("the caches of %d users take %d MiB, want at most 150 MiB", users, used>>20)
	}
}

// TestExpiringCache_AWorkingSetJustAboveTheBoundStaysMostlyCached: with
// 1% more keys in use than the bound, random reads still hit at least 95%
// of the time (dropping an eighth at each overflow hit about 94%, and each
// miss is a store read).
func TestExpiringCache_AWorkingSetJustAboveTheBoundStaysMostlyCached(t *testing.T) {
	now := time.Unix(0, 0)
	const bound, keys, reads = 10_000, 10_100, 200_000
	c := newExpiringCache[int, int](time.Hour, bound, func() time.Time { return now })
	for k := range keys {
		c.set(k, k)
	}
	hits := 0
	for i := range reads {
		k := (i * 7919) % keys // every key, in an order unrelated to insertion
		if _, ok := c.get(k); ok {
			hits++
		} else {
			c.set(k, k)
		}
	}
	if rate := float64(hits) / reads; rate < 0.95 {
		t.Fatalf("hit rate %.3f over a working set 1%% above the bound, want ≥ 0.95", rate)
	}
}
