package access_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
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

// TestLogin_AHashUnderOldParametersIsUpgradedAtTheNextLogin: once the
// argon2id parameters are raised, a user's next verified login rehashes
// their password under the new ones; the password keeps working, a wrong
// password upgrades nothing, and a hash already current is not rewritten.
func TestLogin_AHashUnderOldParametersIsUpgradedAtTheNextLogin(t *testing.T) {
	ctx := context.Background()
	store := storetest.Default(t)
	before := access.NewService(store, access.Config{Argon2: cheapArgon2})
	created, err := before.CreateApp(ctx, access.AppSettings{Name: ptr("rehash")})
	must(t, err)
	app, err := before.AuthenticateApp(ctx, created.APIKey, created.APISecret)
	must(t, err)
	const password = "a phrase to keep 42"
	_, err = before.SignUp(ctx, app, access.SignUpRequest{Username: "robin", Password: password})
	must(t, err)
	raised := access.Argon2Params{MemoryKiB: 2 * cheapArgon2.MemoryKiB, Iterations: 2, Parallelism: 1}
	writes := newCountingStore(store)
	after := access.NewService(writes, access.Config{Argon2: raised, CredentialCacheTTL: -1})
	stored := func() string {
		t.Helper()
		acct, err := store.AccountByName(ctx, app.ID, access.UsernameKey("robin"))
		must(t, err)
		return acct.PasswordHash
	}
	old := stored()
	login := func(password string) error {
		_, err := after.Authenticate(ctx, app, access.Credentials{Username: "robin", Password: password}, false)
		return err
	}

	if err := login("not the phrase 42"); access.CodeOf(err) != access.CodeInvalidCredentials {
		t.Fatalf("a wrong password: %v", err)
	}
	if stored() != old {
		t.Fatal("a wrong password upgraded the hash")
	}
	writes.take()
	must(t, login(password))
	upgraded := stored()
	if upgraded == old || !strings.Contains(upgraded, "$m=128,t=2,p=1$") {
		t.Fatalf("after a login under raised parameters the hash is %q (was %q)", upgraded, old)
	}
	must(t, login(password))
	if got := countOf(writes.take(), "UpgradeAccountPassword"); got != 1 || stored() != upgraded {
		t.Fatalf("%d upgrades after two logins, want 1 (a current hash is left as it is)", got)
	}
	// An instance still on the old parameters verifies the stronger hash
	// and leaves it as it is: it never weakens it.
	if _, err := before.Authenticate(ctx, app, access.Credentials{Username: "robin", Password: password}, false); err != nil {
		t.Fatalf("the upgraded hash under the old service's parameters: %v", err)
	}
	if stored() != upgraded {
		t.Fatal("an instance on the old parameters weakened the upgraded hash")
	}
}

// countOf is how many of calls are method.
func countOf(calls []string, method string) int {
	return len(slices.DeleteFunc(calls, func(c string) bool { return c != method }))
}

// TestPasswordHasher_HashIfIdleNeverWaitsForASlot: with every slot busy
// the rehash is skipped at once; with one free it hashes, and the hash
// verifies.
func TestPasswordHasher_HashIfIdleNeverWaitsForASlot(t *testing.T) {
	ctx := context.Background()
	h := access.NewPasswordHasher(access.Argon2Params{MemoryKiB: 32 * 1024, Iterations: 3, Parallelism: 1}, 1, 4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = h.Hash(ctx, "a slow hash")
	}()
	time.Sleep(5 * time.Millisecond) // the one slot is taken
	begin := time.Now()
	if _, ok := h.HashIfIdle("rehash me"); ok {
		<-done
		t.Skip("the slow hash ended before the rehash was tried")
	}
	if took := time.Since(begin); took > 50*time.Millisecond {
		t.Fatalf("a skipped rehash took %v: it waited for the slot", took)
	}
	<-done
	hash, ok := h.HashIfIdle("rehash me")
	if !ok {
		t.Fatal("with the slot free the rehash was skipped")
	}
	if ok, err := h.Verify(ctx, "rehash me", hash); !ok || err != nil {
		t.Fatalf("the rehash does not verify: %v, %v", ok, err)
	}
}
