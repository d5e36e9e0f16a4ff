package access_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// TestAdminSession_EndsWithItsAdministratorWhenASignInRacesTheDeletion:
// an administrator being removed keeps signing in (a departing one who
// knows the password); a sign-in that read the account before the deletion
// and opened its session after it must not leave a working session.
func TestAdminSession_EndsWithItsAdministratorWhenASignInRacesTheDeletion(t *testing.T) {
	ctx := context.Background()
	params := access.Argon2Params{MemoryKiB: 8 << 10, Iterations: 1, Parallelism: 1}
	svc := access.NewService(storetest.Default(t), access.Config{Argon2: params})
	for round := 0; round < 5; round++ {
		if _, err := svc.CreateAdmin(ctx, "mallory", "correct horse battery"); err != nil {
			t.Fatal(err)
		}
		signIns := signInWhile(svc, "mallory", "correct horse battery")
		time.Sleep(30 * time.Millisecond)
		if err := svc.DeleteAdmin(ctx, "mallory"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond)
		tokens := signIns()
		for _, tok := range tokens {
			if sess, err := svc.AdminSessionOf(ctx, tok); err == nil {
				t.Fatalf("round %d: a session of the deleted administrator still works: %+v (%d sign-ins)", round, sess, len(tokens))
			}
		}
	}
}

// TestAdminSession_OfADeletedAdministratorIsNoSessionOfTheNextOneOfItsName:
// a session that outlived its administrator (left by the race above) does
// not come back to life when the name is given to someone else.
func TestAdminSession_OfADeletedAdministratorIsNoSessionOfTheNextOneOfItsName(t *testing.T) {
	ctx := context.Background()
	c := &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	store := storetest.Default(t)
	svc := access.NewService(store, access.Config{Argon2: cheapArgon2, Now: c.Now})
	if _, err := svc.CreateAdmin(ctx, "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	token, _, err := svc.SignInAdmin(ctx, "alice", "correct horse battery", "")
	if err != nil {
		t.Fatal(err)
	}
	// The account goes while its session stays behind, as when a sign-in
	// stores its session after DeleteAdmin ended the ones it found.
	if err := store.DeleteAdmin(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	_, err = svc.AdminSessionOf(ctx, token)
	wantCode(t, err, access.CodeAuthenticationRequired)
	c.advance(time.Minute)
	if _, err := svc.CreateAdmin(ctx, "alice", "another horse battery"); err != nil {
		t.Fatal(err)
	}
	_, err = svc.AdminSessionOf(ctx, token)
	wantCode(t, err, access.CodeAuthenticationRequired)
	// The new administrator's own sessions work.
	fresh, _, err := svc.SignInAdmin(ctx, "alice", "another horse battery", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AdminSessionOf(ctx, fresh); err != nil {
		t.Fatalf("the new administrator's session: %v", err)
	}
}

// signInWhile signs the administrator in from three goroutines, again and
// again, until the returned function is called: it stops them and returns
// the tokens of the sign-ins that succeeded.
func signInWhile(svc *access.Service, username, password string) (stop func() []string) {
	var (
		mu     sync.Mutex
		tokens []string
		wg     sync.WaitGroup
	)
	done := make(chan struct{})
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if token, _, err := svc.SignInAdmin(context.Background(), username, password, ""); err == nil {
					mu.Lock()
					tokens = append(tokens, token)
					mu.Unlock()
				}
			}
		})
	}
	return func() []string {
		close(done)
		wg.Wait()
		return tokens
	}
}

// TestAdminSession_NoneOpenedWithTheOldPasswordOutlivesAReset: while an
// administrator's password is set anew (it leaked), sign-ins with the old
// one keep coming; none that read the account before the reset and stored
// its session after it may keep a working session.
func TestAdminSession_NoneOpenedWithTheOldPasswordOutlivesAReset(t *testing.T) {
	ctx := context.Background()
	params := access.Argon2Params{MemoryKiB: 8 << 10, Iterations: 1, Parallelism: 1}
	svc := access.NewService(storetest.Default(t), access.Config{Argon2: params})
	if _, err := svc.CreateAdmin(ctx, "mallory", "leaked horse battery 0"); err != nil {
		t.Fatal(err)
	}
	old := "leaked horse battery 0"
	for round := 1; round <= 5; round++ {
		signIns := signInWhile(svc, "mallory", old)
		time.Sleep(30 * time.Millisecond)
		next := fmt.Sprintf("a fresh horse battery %d", round)
		if err := svc.SetAdminPassword(ctx, "mallory", next); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond)
		tokens := signIns()
		for _, tok := range tokens {
			if sess, err := svc.AdminSessionOf(ctx, tok); err == nil {
				t.Fatalf("round %d: a session opened with the old password still works: %+v (%d sign-ins)", round, sess, len(tokens))
			}
		}
		old = next
	}
}

// TestSetAdminPassword_ARaceWithATOTPChangeLosesNeither: a password reset
// and a TOTP change of one administrator at once both stand: neither
// writes back what it read of the other's field.
func TestSetAdminPassword_ARaceWithATOTPChangeLosesNeither(t *testing.T) {
	ctx := context.Background()
	params := access.Argon2Params{MemoryKiB: 8 << 10, Iterations: 1, Parallelism: 1}
	svc := access.NewService(storetest.Default(t), access.Config{Argon2: params})
	for round := range 8 {
		name := fmt.Sprintf("racer%d", round)
		if _, err := svc.CreateAdmin(ctx, name, "first horse battery"); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.BeginTOTP(ctx, name); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var reset error
		wg.Go(func() { reset = svc.SetAdminPassword(ctx, name, "second horse battery") })
		wg.Go(func() {
			time.Sleep(time.Duration(round) * time.Millisecond) // within the reset's hash
			must(t, svc.DisableTOTP(ctx, name))
		})
		wg.Wait()
		must(t, reset)
		a, err := svc.AdminNamed(ctx, name)
		must(t, err)
		if a.PendingTOTPSecret != "" {
			t.Fatalf("round %d: the reset wrote back the pending TOTP secret the disabling removed", round)
		}
		if _, _, err := svc.SignInAdmin(ctx, name, "second horse battery", ""); err != nil {
			t.Fatalf("round %d: the new password after a TOTP change raced the reset: %v", round, err)
		}
	}
}
