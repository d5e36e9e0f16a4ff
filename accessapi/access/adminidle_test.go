package access_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// expiryWrites counts the writes of dashboard sessions' idle ends.
type expiryWrites struct {
	access.Store
	n atomic.Int64
}

func (s *expiryWrites) SetAdminSessionExpiry(ctx context.Context, tokenHash string, at time.Time) error {
	s.n.Add(1)
	return s.Store.SetAdminSessionExpiry(ctx, tokenHash, at)
}

// TestAdminSession_IdleOnesEndActiveOnesContinueUntilTheirAbsoluteEnd: a
// dashboard session ends after the idle timeout without a request, while
// one in use continues (past many idle timeouts) until AdminSessionTTL,
// and a request costs a store write only when the recorded activity is
// over a minute old.
func TestAdminSession_IdleOnesEndActiveOnesContinueUntilTheirAbsoluteEnd(t *testing.T) {
	tests := []struct {
		name string
		idle time.Duration // Config.AdminIdleTimeout; 0 is the default
		// gaps are the pauses before each request after sign-in; every
		// request but the last is answered.
		gaps []time.Duration
		// lastAnswered tells whether the last request is answered.
		lastAnswered bool
	}{
		{"idle past the default timeout", 0, []time.Duration{30*time.Minute + time.Second}, false},
		{"idle just under the default timeout", 0, []time.Duration{29 * time.Minute}, true},
		{"active every 20 minutes for 6 hours", 0, repeat(18, 20*time.Minute), true},
		{"active, then idle past the timeout", 0, append(repeat(6, 20*time.Minute), 31*time.Minute), false},
		{"active every 20 minutes past the 12 h end", 0, repeat(36, 20*time.Minute), false},
		{"a configured 5 minutes, idle 6", 5 * time.Minute, []time.Duration{4 * time.Minute, 4 * time.Minute, 6 * time.Minute}, false},
		{"a configured 5 minutes, active every 4", 5 * time.Minute, repeat(10, 4*time.Minute), true},
		// A timeout at or under the one-minute write grain: activity must
		// still be recorded, or the session ends that long after sign-in.
		{"a configured minute, active every 20 seconds", time.Minute, repeat(12, 20*time.Second), true},
		{"a configured 30 seconds, active every 20", 30 * time.Second, repeat(12, 20*time.Second), true},
		{"a configured 90 seconds, active every 60", 90 * time.Second, repeat(6, time.Minute), true},
		{"a configured minute, idle 61 seconds", time.Minute, []time.Duration{20 * time.Second, 61 * time.Second}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			clk := &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
			svc := access.NewService(storetest.Default(t), access.Config{Argon2: cheapArgon2, Now: clk.Now, AdminIdleTimeout: tc.idle})
			if _, err := svc.CreateAdmin(ctx, "alice", "vortex-lamp-71"); err != nil {
				t.Fatal(err)
			}
			token, _, err := svc.SignInAdmin(ctx, "alice", "vortex-lamp-71", "")
			if err != nil {
				t.Fatal(err)
			}
			for i, gap := range tc.gaps {
				clk.advance(gap)
				_, err := svc.AdminSessionOf(ctx, token)
				want := i < len(tc.gaps)-1 || tc.lastAnswered
				if got := err == nil; got != want {
					t.Fatalf("request %d, %v after the one before (%v since sign-in): answered %v (%v), want %v",
						i+1, gap, clk.Now().Sub(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)), got, err, want)
				}
				if !want {
					wantCode(t, err, access.CodeAuthenticationRequired)
				}
			}
		})
	}
}

func repeat(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// TestAdminSession_ActivityIsWrittenAtMostOnceAMinute: requests in quick
// succession cost no store write; one over a minute after the recorded
// activity writes once.
func TestAdminSession_ActivityIsWrittenAtMostOnceAMinute(t *testing.T) {
	ctx := context.Background()
	clk := &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	store := &expiryWrites{Store: storetest.Default(t)}
	svc := access.NewService(store, access.Config{Argon2: cheapArgon2, Now: clk.Now})
	if _, err := svc.CreateAdmin(ctx, "alice", "vortex-lamp-71"); err != nil {
		t.Fatal(err)
	}
	token, _, err := svc.SignInAdmin(ctx, "alice", "vortex-lamp-71", "")
	if err != nil {
		t.Fatal(err)
	}
	for range 50 { // 50 requests over 50 seconds
		clk.advance(time.Second)
		if _, err := svc.AdminSessionOf(ctx, token); err != nil {
			t.Fatal(err)
		}
	}
	if n := store.n.Load(); n != 0 {
		t.Fatalf("50 requests within a minute wrote the session %d times, want 0", n)
	}
	clk.advance(20 * time.Second)
	for range 5 {
		if _, err := svc.AdminSessionOf(ctx, token); err != nil {
			t.Fatal(err)
		}
	}
	if n := store.n.Load(); n != 1 {
		t.Fatalf("requests over a minute after sign-in wrote the session %d times, want 1", n)
	}
	sess, err := store.AdminSessionByHash(ctx, access.SecretHash(token))
	if err != nil {
		t.Fatal(err)
	}
	if want := clk.Now().Add(access.DefaultAdminIdleTimeout); !sess.ExpiresAt.Equal(want) {
		t.Fatalf("stored idle end %v, want %v", sess.ExpiresAt, want)
	}
}
