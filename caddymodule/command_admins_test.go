package caddymodule

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

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
