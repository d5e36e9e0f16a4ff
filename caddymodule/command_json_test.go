package caddymodule

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminapi/adminapitest"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// leafCommands are the paths of every subcommand that runs ("apps
// create", "audit").
func leafCommands() []string {
	root := &cobra.Command{Use: "app-access"}
	newCLI(bytes.NewReader(nil), &bytes.Buffer{}).build(root)
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.HasSubCommands() {
			out = append(out, strings.TrimPrefix(c.CommandPath(), "app-access "))
			return
		}
		for _, s := range c.Commands() {
			if s.Name() != "help" && s.Name() != "completion" {
				walk(s)
			}
		}
	}
	walk(root)
	return out
}

func TestCommand_EveryCommandPrintsJSONWithTheJSONFlag(t *testing.T) {
	isolate(t)
	s := adminapitest.NewOver(t, storetest.SQLite(t))
	ran := map[string]bool{}
	leaves := leafCommands()
	// run runs a command with --json and decodes its output into v (nil:
	// any JSON value); an export to the standard output is JSON Lines.
	run := func(input string, v any, args ...string) {
		t.Helper()
		// The command is the longest run of leading words that names one.
		for n := min(3, len(args)); n > 0; n-- {
			if name := strings.Join(args[:n], " "); slices.Contains(leaves, name) {
				ran[name] = true
				break
			}
		}
		stdout, _, err := runCommandSplit(t, []byte(input), append(args, "--json", "--address", s.Addr)...)
		if err != nil {
			t.Fatalf("%s: %v", strings.Join(args, " "), err)
		}
		if args[0] == "export" && len(args) == 1 {
			sc := bufio.NewScanner(strings.NewReader(stdout))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if !json.Valid(sc.Bytes()) {
					t.Fatalf("export --json: a line is not JSON: %.200q", sc.Text())
				}
			}
			return
		}
		if v == nil {
			v = new(any)
		}
		if err := json.Unmarshal([]byte(stdout), v); err != nil {
			t.Fatalf("%s --json printed %q, not JSON: %v", strings.Join(args, " "), stdout, err)
		}
	}
	ctx := context.Background()

	var app wire.App
	run("", &app, "apps", "create", "--name", "json")
	id := app.ID
	run("", nil, "apps", "list")
	run("", nil, "apps", "update", id, "--anonymous-access")
	run("", nil, "apps", "rotate-secret", id)
	run("", nil, "apps", "activity", id)
	run("", nil, "apps", "signing-keys", "rotate", id)
	run("", nil, "apps", "signing-keys", "rotate", id)
	var shown wire.App
	run("", &shown, "apps", "show", id)
	for _, k := range shown.SigningKeys {
		if !k.Active {
			run("", nil, "apps", "signing-keys", "retire", id, k.ID)
			break
		}
	}

	var issued wire.IssuedLicenses
	run("", &issued, "licenses", "create", "--app", id, "--count", "2", "--minutes", "60")
	run("", nil, "licenses", "list", "--app", id)
	run("", nil, "licenses", "show", "--app", id, issued.Licenses[0].ID)
	run("", nil, "licenses", "delete", "--app", id, issued.Licenses[0].ID)

	var hook wire.Webhook
	run("", &hook, "webhooks", "create", "--app", id, "--url", "https://example.com/hook", "--event", "user.signed_up")
	run("", nil, "webhooks", "list", "--app", id)
	run("", nil, "webhooks", "rotate-secret", "--app", id, hook.ID)

	a, err := s.Service.App(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Service.SignUp(ctx, a, access.SignUpRequest{Username: "watched", Password: "vortex-lamp-71"})
	if err != nil {
		t.Fatal(err)
	}
	run("", nil, "webhooks", "deliveries", "--app", id, hook.ID)
	page, err := s.Service.Deliveries(ctx, id, hook.ID, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	d := page.Items[0]
	d.Status, d.Attempts = access.DeliveryFailed, 1 // as a dispatcher records it
	if err := s.Store.UpdateDelivery(ctx, &d, 0); err != nil {
		t.Fatal(err)
	}
	run("", nil, "webhooks", "redeliver", "--app", id, hook.ID, d.ID)
	run("", nil, "webhooks", "delete", "--app", id, hook.ID)

	run("", nil, "users", "list", "--app", id)
	run("", nil, "users", "show", "--app", id, u.ID)
	run("", nil, "users", "grant", "--app", id, u.ID, "--minutes", "30")
	run("", nil, "users", "activations", "--app", id, u.ID)
	run("a new passphrase 7\n", nil, "users", "reset-password", "--app", id, u.ID)
	run("", nil, "users", "ban", "--app", id, u.ID, "--reason", "spam")
	run("", nil, "users", "unban", "--app", id, u.ID)
	run("", nil, "users", "reset-devices", "--app", id, u.ID)
	run("", nil, "users", "end-sessions", "--app", id, u.ID)

	run("", nil, "vars", "set", "--app", id, "motd", "hello")
	run("", nil, "vars", "list", "--app", id)
	run("", nil, "vars", "delete", "--app", id, "motd")

	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("file contents"), 0o600); err != nil {
		t.Fatal(err)
	}
	var f wire.FileInfo
	run("", &f, "files", "upload", "--app", id, notes)
	run("", nil, "files", "list", "--app", id)
	run("", nil, "files", "delete", "--app", id, f.ID)

	var sk wire.SellerKey
	run("", &sk, "keys", "create", "--app", id, "--name", "shop", "--scope", "licenses:create")
	run("", nil, "keys", "list", "--app", id)
	run("", nil, "keys", "revoke", "--app", id, sk.ID)

	run("vortex-lamp-71\n", nil, "admins", "create", "--username", "dana")
	run("", nil, "admins", "list")
	var en wire.TOTPEnrolment
	run("", &en, "admins", "totp-begin", "--username", "dana")
	code, err := totp.GenerateCode(en.Secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	run("", nil, "admins", "totp-confirm", "--username", "dana", code)
	run("", nil, "admins", "totp-disable", "--username", "dana")
	run("vortex-lamp-72\n", nil, "admins", "set-password", "--username", "dana")
	run("", nil, "admins", "delete", "--username", "dana")

	run("", nil, "audit")
	run("", nil, "backup", filepath.Join(t.TempDir(), "copy.db"))
	run("", nil, "export")
	exported := filepath.Join(t.TempDir(), "export.jsonl")
	run("", nil, "export", exported)
	run("", nil, "users", "delete", "--app", id, u.ID)
	run("", nil, "apps", "delete", id)

	empty := adminapitest.NewOver(t, storetest.SQLite(t))
	data, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runCommandSplit(t, data, "import", "--json", "--address", empty.Addr)
	if err != nil || !json.Valid([]byte(stdout)) {
		t.Fatalf("import --json printed %q, %v", stdout, err)
	}
	ran["import"] = true

	for _, c := range leaves {
		if !ran[c] {
			t.Errorf("%s was not run with --json here: add it", c)
		}
	}
}
