package access

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestAddressCounters_EvictionSparesCountersThatHoldBack: when the
// per-address counters are full, a spray of new addresses evicts counters
// that hold no one back, not the one making a guesser wait, nor one with
// an attempt in flight.
func TestAddressCounters_EvictionSparesCountersThatHoldBack(t *testing.T) {
	c := newAddressCounters(0) // 64 a shard
	p, now := DefaultThrottlePolicy, time.Now()
	ctx, clock := context.Background(), func() time.Time { return now }
	for range p.CodeFree + 3 {
		if c.reserve(ctx, kindCode, "app", "guesser", p, p.CodeFree, clock) != 0 {
			break
		}
		c.settle(kindCode, "app", "guesser", p, p.CodeFree, now, failed)
	}
	before := c.retryIn(kindCode, "app", "guesser", p, p.CodeFree, now)
	if before == 0 {
		t.Fatal("the guesser is not held back")
	}
	if c.reserve(ctx, kindPassword, "app", "in-flight", p, p.AddressFree, clock) != 0 {
		t.Fatal("a first attempt was refused")
	}
	// Each of these fails once: under its free allowance, holding no one.
	for i := range 16 * 64 * 8 {
		addr := fmt.Sprintf("spray-%d", i)
		c.reserve(ctx, kindCode, "app", addr, p, p.CodeFree, clock)
		c.settle(kindCode, "app", addr, p, p.CodeFree, now, failed)
	}
	if got := c.retryIn(kindCode, "app", "guesser", p, p.CodeFree, now); got != before {
		t.Fatalf("after the spray the guesser waits %v, want %v", got, before)
	}
	if v, ok := c.get(counterKey(kindPassword, "app", "in-flight")); !ok || v.pending != 1 {
		t.Fatalf("the attempt in flight was evicted: %+v %v", v, ok)
	}
}

// retryIn is the wait a counter holds an address to, without counting
// anything (what failUnlessHeld would answer).
func (c *addressCounters) retryIn(kind, scope, addr string, p ThrottlePolicy, free int, now time.Time) time.Duration {
	if addr == "" {
		return 0
	}
	v, ok := c.get(counterKey(kind, scope, addr))
	if !ok {
		return 0
	}
	return v.wait(p, free, now)
}
