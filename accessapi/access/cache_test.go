package access

import (
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
