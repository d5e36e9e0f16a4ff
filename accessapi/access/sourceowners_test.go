package access_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// TestSignInAdmin_ARecreatedAdministratorDoesNotInheritKnownAddresses: an
// administrator deleted and created again under the same name is another
// owner of the name's sign-in account, so the old one's addresses no
// longer pass the account-wide counter. (Users: the conformance test
// KnownSources_AreNotInheritedByTheNextUserOfADeletedUsersName.)
func TestSignInAdmin_ARecreatedAdministratorDoesNotInheritKnownAddresses(t *testing.T) {
	clk := &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	svc := access.NewService(storetest.Default(t), access.Config{Argon2: cheapArgon2, Now: clk.Now,
		Throttle: access.ThrottlePolicy{AccountFree: 3, AccountAddressFree: 100, AddressFree: 100}})
	from := func(addr string) context.Context { return access.WithClientAddress(context.Background(), addr) }
	const home, password = "198.51.100.7", "vortex-lamp-71"
	signIn := func(addr string) access.Code {
		t.Helper()
		_, _, err := svc.SignInAdmin(from(addr), "alice", password, "")
		if err == nil {
			return ""
		}
		return access.CodeOf(err)
	}
	if _, err := svc.CreateAdmin(context.Background(), "alice", password); err != nil {
		t.Fatal(err)
	}
	if code := signIn(home); code != "" {
		t.Fatalf("sign-in from home: %s", code)
	}
	for i := range 3 {
		if _, _, err := svc.SignInAdmin(from(fmt.Sprintf("203.0.113.%d", i+1)), "alice", "a wrong guess 0000", ""); access.CodeOf(err) != access.CodeInvalidCredentials {
			t.Fatalf("wrong guess %d: %v", i+1, err)
		}
	}
	if code := signIn(home); code != "" {
		t.Fatalf("the administrator's own address while the account's counter holds: %s", code)
	}
	if err := svc.DeleteAdmin(context.Background(), "alice"); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Millisecond) // within the wait
	if _, err := svc.CreateAdmin(context.Background(), "alice", password); err != nil {
		t.Fatal(err)
	}
	if code := signIn(home); code != access.CodeTooManyAttempts {
		t.Fatalf("the deleted administrator's address signs in to the new one's held-back account: %q, want %s", code, access.CodeTooManyAttempts)
	}
}
