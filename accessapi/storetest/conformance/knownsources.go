package conformance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// testKnownSourcesOfADeletedUser: the addresses a user logged in from
// relax the throttling of that user's account only. Known sources are
// recorded under the account's key, a username's, and the username can be
// taken again once its user is deleted: the next user of the name must not
// inherit them, on this instance (which remembered them) or on another
// (which reads them from the store).
func testKnownSourcesOfADeletedUser(t *testing.T, s access.Store) {
	ctx := context.Background()
	now := func() time.Time { return epoch } // the clock stands still: a wait never ends
	cfg := access.Config{Argon2: access.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}, Now: now,
		Throttle: access.ThrottlePolicy{AccountFree: 3, AccountAddressFree: 100, AddressFree: 100, SignUpsPerAddress: 100}}
	svc := access.NewService(s, cfg)
	name := "known sources"
	created, err := svc.CreateApp(ctx, access.AppSettings{Name: &name})
	must(t, err)
	app := &created.App
	from := func(addr string) context.Context { return access.WithClientAddress(ctx, addr) }
	const home, old, renewed = "198.51.100.7", "old password 4417", "new password 9921"
	login := func(svc *access.Service, addr, password string) access.Code {
		t.Helper()
		_, err := svc.Login(from(addr), app, access.LoginRequest{Credentials: access.Credentials{Username: "bob", Password: password}})
		if err == nil {
			return ""
		}
		return access.CodeOf(err)
	}

	first, err := svc.SignUp(from(home), app, access.SignUpRequest{Username: "bob", Password: old})
	must(t, err)
	if code := login(svc, home, old); code == access.CodeTooManyAttempts || code == access.CodeInvalidCredentials {
		t.Fatalf("the first bob's login from home: %s", code)
	}
	// Wrong passwords from elsewhere fill the account's counter: it now
	// holds back every source the account does not know.
	for i := range 3 {
		if code := login(svc, fmt.Sprintf("203.0.113.%d", i+1), "a wrong guess 0000"); code != access.CodeInvalidCredentials {
			t.Fatalf("wrong guess %d: %s", i+1, code)
		}
	}
	if code := login(svc, "192.0.2.99", old); code != access.CodeTooManyAttempts {
		t.Fatalf("an unknown source while the account's counter holds: %s, want %s", code, access.CodeTooManyAttempts)
	}
	if code := login(svc, home, old); code == access.CodeTooManyAttempts {
		t.Fatalf("the first bob's own address is held back: %s", code)
	}

	must(t, svc.DeleteUser(ctx, app.ID, first.ID))
	if _, err := svc.SignUp(from("192.0.2.200"), app, access.SignUpRequest{Username: "bob", Password: renewed}); err != nil {
		t.Fatalf("the name's next user signs up: %v", err)
	}
	for _, inst := range []struct {
		name string
		svc  *access.Service
	}{{"this instance", svc}, {"another instance", access.NewService(s, cfg)}} {
		if code := login(inst.svc, home, renewed); code != access.CodeTooManyAttempts {
			t.Errorf("%s: the deleted bob's address logs in to the new bob's held-back account: %q, want %s", inst.name, code, access.CodeTooManyAttempts)
		}
	}
}
