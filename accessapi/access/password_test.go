package access_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

func TestPasswordHasher_AFullQueueRefusesAtOnce(t *testing.T) {
	// One slot and one waiting place; a slow hash keeps them taken.
	h := access.NewPasswordHasher(access.Argon2Params{MemoryKiB: 32 * 1024, Iterations: 3, Parallelism: 1}, 1, 1)
	ctx := context.Background()
	var wg sync.WaitGroup
	started := make(chan struct{}, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started <- struct{}{}
			_, _ = h.Hash(ctx, "password")
		}()
	}
	<-started
	<-started
	time.Sleep(20 * time.Millisecond) // both are running or waiting
	begin := time.Now()
	_, err := h.Verify(ctx, "password", "")
	took := time.Since(begin)
	wg.Wait()
	if !errors.Is(err, access.ErrHashQueueFull) {
		t.Fatalf("third check: %v, want ErrHashQueueFull", err)
	}
	var e *access.Error
	if !errors.As(err, &e) || e.Code != access.CodeUnavailable || e.RetryAfter <= 0 {
		t.Fatalf("refusal %+v: want 503-class with a Retry-After", e)
	}
	if took > 10*time.Millisecond {
		t.Fatalf("the refusal took %v; it must not wait for a slot", took)
	}
	// Once the queue drains, checks go through again.
	if _, err := h.Verify(ctx, "password", ""); err != nil {
		t.Fatal(err)
	}
}
