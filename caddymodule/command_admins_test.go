package caddymodule

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestCommand_AdminsCreateReadsThePasswordFromStdinAndSignsIn(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	out, err := runCommandWithInput(t, "correct horse battery\n", "admins", "create", "--username", "Alice", "--address", s.Addr)
	if err != nil || !regexpLine(out, "username", "alice") || !regexpLine(out, "totp", "false") {
		t.Fatalf("admins create: %v\n%s", err, out)
	}
	if out := mustRun(t, "admins", "list", "--address", s.Addr); !strings.Contains(out, "alice") || strings.Contains(out, "correct horse") {
		t.Fatalf("admins list:\n%s", out)
	}
	if _, _, err := s.Service.SignInAdmin(context.Background(), "alice", "correct horse battery", ""); err != nil {
		t.Fatalf("signing in with the password given on stdin: %v", err)
	}
	if _, err := runCommandWithInput(t, "short\n", "admins", "create", "--username", "bob", "--address", s.Addr); err == nil {
		t.Fatal("a short password was accepted")
	}
}

// slowTyping is a password typed after a pause.
type slowTyping struct {
	pause time.Duration
	r     io.Reader
}

func (s *slowTyping) Read(p []byte) (int, error) {
	time.Sleep(s.pause)
	s.pause = 0
	return s.r.Read(p)
}

// TestCommand_TheTimeoutStartsAfterThePasswordIsTyped: --timeout bounds
// the wait for the server, not the person typing the password.
func TestCommand_TheTimeoutStartsAfterThePasswordIsTyped(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	name := "typing"
	app := s.CreateApp(t, access.AppSettings{Name: &name})
	user, err := s.Service.SignUp(context.Background(), &app.App, access.SignUpRequest{Username: "carol", Password: "old-enough-phrase-9"})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"admins", "create", "--username", "dave"},
		{"admins", "set-password", "--username", "dave"},
		{"users", "reset-password", user.ID, "--app", app.ID},
	} {
		typing := &slowTyping{pause: 600 * time.Millisecond, r: strings.NewReader("a new long enough phrase\n")}
		if out, err := runCommandReading(t, typing, append(args, "--address", s.Addr, "--timeout", "300ms")...); err != nil {
			t.Fatalf("%s with the password typed after the timeout's length: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

func TestCommand_KeysCreateShowsTheSecretOnceAndRevokes(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	cli := func(args ...string) string { t.Helper(); return mustRun(t, append(args, "--address", s.Addr)...) }
	var app wire.App
	if err := json.Unmarshal([]byte(cli("apps", "create", "--name", "shop", "--json")), &app); err != nil {
		t.Fatal(err)
	}
	var key wire.SellerKey
	if err := json.Unmarshal([]byte(cli("keys", "create", "--app", app.ID, "--name", "webshop", "--scope", "licenses:create", "--scope", "licenses:read", "--json")), &key); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(key.Key, "sk_") || len(key.Scopes) != 2 {
		t.Fatalf("created key %+v", key)
	}
	if out := cli("keys", "list", "--app", app.ID); !strings.Contains(out, key.ID) || strings.Contains(out, key.Key) {
		t.Fatalf("keys list shows the secret or misses the key:\n%s", out)
	}
	if _, err := s.Service.AuthenticateSellerKey(context.Background(), key.Key); err != nil {
		t.Fatal(err)
	}
	if out := cli("keys", "revoke", "--app", app.ID, key.ID); out != "done\n" {
		t.Fatalf("keys revoke: %q", out)
	}
	if _, err := s.Service.AuthenticateSellerKey(context.Background(), key.Key); access.CodeOf(err) != access.CodeAuthenticationRequired {
		t.Fatalf("revoked key: %v", err)
	}
}

// TestCommand_AdminsSetPasswordReplacesAForgottenOne: the operator sets a
// new password from the shell; the old one no longer signs in.
func TestCommand_AdminsSetPasswordReplacesAForgottenOne(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	if _, err := runCommandWithInput(t, "forgotten horse battery\n", "admins", "create", "--username", "erin", "--address", s.Addr); err != nil {
		t.Fatal(err)
	}
	out, err := runCommandWithInput(t, "remembered horse battery\n", "admins", "set-password", "--username", "erin", "--address", s.Addr)
	if err != nil || out != "done\n" {
		t.Fatalf("admins set-password: %v\n%s", err, out)
	}
	if _, _, err := s.Service.SignInAdmin(context.Background(), "erin", "forgotten horse battery", ""); access.CodeOf(err) != access.CodeInvalidCredentials {
		t.Fatalf("the old password: %v", err)
	}
	if _, _, err := s.Service.SignInAdmin(context.Background(), "erin", "remembered horse battery", ""); err != nil {
		t.Fatalf("the new password: %v", err)
	}
	if out, err := runCommandWithInput(t, "short\n", "admins", "set-password", "--username", "erin", "--address", s.Addr); err == nil || !strings.Contains(out+err.Error(), "password") {
		t.Fatalf("a short password: %v\n%s", err, out)
	}
}
