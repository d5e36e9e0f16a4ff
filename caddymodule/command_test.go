package caddymodule

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminapi/adminapitest"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// newCmdServer is the real management API over the real store.
func newCmdServer(t *testing.T) *adminapitest.Server { return adminapitest.New(t) }

// isolate points HOME and the XDG folders at a temporary folder and clears
// the admin address variable, so the command reads nothing of the machine.
func isolate(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "share"))
	t.Setenv(EnvAdminAddress, "")
}

// runCommand runs caddy app-access with args and returns what it printed.
func runCommand(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runCommandWithInput(t, "", args...)
}

// runCommandWithInput is runCommand with input on the standard input.
func runCommandWithInput(t *testing.T, input string, args ...string) (string, error) {
	t.Helper()
	return runCommandReading(t, strings.NewReader(input), args...)
}

// runCommandReading is runCommandWithInput with the standard input read
// from in.
func runCommandReading(t *testing.T, in io.Reader, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root := &cobra.Command{Use: "app-access", SilenceErrors: true}
	newCLI(in, &out).build(root)
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&out)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// mustRun is runCommand that fails the test on an error.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := runCommand(t, args...)
	if err != nil {
		t.Fatalf("app-access %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func TestCommand_FindsTheServerByFlagVariableConfigInThatOrder(t *testing.T) {
	isolate(t)
	a, b := newCmdServer(t), newCmdServer(t)
	for _, s := range []struct {
		srv  *adminapitest.Server
		name string
	}{{a, "app-on-a"}, {b, "app-on-b"}} {
		s.srv.CreateApp(t, access.AppSettings{Name: &s.name})
	}
	dir := t.TempDir()
	caddyfile := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(caddyfile, []byte("{\n\tadmin "+b.Addr+"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	jsonConfig := filepath.Join(dir, "caddy.json")
	if err := os.WriteFile(jsonConfig, []byte(`{"admin": {"listen": "`+a.Addr+`"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"--address, bare", "", []string{"--address", a.Addr}, "app-on-a"},
		{"--address with a scheme", "", []string{"--address", "http://" + b.Addr}, "app-on-b"},
		{"the variable", a.Addr, nil, "app-on-a"},
		{"the variable with a scheme", "http://" + b.Addr, nil, "app-on-b"},
		{"--address before the variable", a.Addr, []string{"--address", b.Addr}, "app-on-b"},
		{"a Caddyfile's admin address", "", []string{"--config", caddyfile}, "app-on-b"},
		{"a JSON config's admin address", "", []string{"--config", jsonConfig}, "app-on-a"},
		{"the variable before --config", a.Addr, []string{"--config", caddyfile}, "app-on-a"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvAdminAddress, tt.env)
			out := mustRun(t, append([]string{"apps", "list"}, tt.args...)...)
			if !strings.Contains(out, tt.want) || strings.Count(out, "app-on-") != 1 {
				t.Fatalf("listed\n%s\nwant %s only", out, tt.want)
			}
		})
	}
}

func TestCommand_DefaultsToCaddysAdminAddress(t *testing.T) {
	isolate(t)
	c := newCLI(strings.NewReader(""), &bytes.Buffer{})
	addr, source, err := c.adminAddress()
	if err != nil || addr != "localhost:2019" || source != "Caddy's default" {
		t.Fatalf("address %q from %q (%v)", addr, source, err)
	}
}

func TestCommand_SaysWhichAddressItCouldNotReach(t *testing.T) {
	isolate(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, tt := range []struct {
		name, env, source string
		args              []string
	}{
		{"from the flag", "", "--address", []string{"--address", closed}},
		{"from the variable", closed, "$" + EnvAdminAddress, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvAdminAddress, tt.env)
			_, err := runCommand(t, append([]string{"apps", "list"}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), closed) || !strings.Contains(err.Error(), tt.source) {
				t.Fatalf("error %v, want one naming %s and %s", err, closed, tt.source)
			}
		})
	}
}

func TestCommand_EverySubcommandAndOutputFormat(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	cli := func(args ...string) string { t.Helper(); return mustRun(t, append(args, "--address", s.Addr)...) }

	var created wire.App
	if err := json.Unmarshal([]byte(cli("apps", "create", "--name", "smoke", "--max-devices", "2", "--json")), &created); err != nil || created.APISecret == "" || created.MaxDevices != 2 {
		t.Fatalf("apps create --json: %+v %v", created, err)
	}
	id := created.ID
	if out := cli("apps", "list"); !strings.HasPrefix(out, "ID") || !strings.Contains(out, "ANONYMOUS_ACCESS") || !strings.Contains(out, id) || strings.Contains(out, created.APISecret) {
		t.Fatalf("apps list:\n%s", out)
	}
	if out := cli("apps", "update", id, "--anonymous-access"); !regexpLine(out, "anonymous_access", "true") || !regexpLine(out, "max_devices", "2") {
		t.Fatalf("apps update:\n%s", out)
	}
	if out := cli("apps", "show", id); !regexpLine(out, "name", "smoke") || !regexpLine(out, "api_secret", "-") {
		t.Fatalf("apps show:\n%s", out)
	}
	if out := cli("apps", "rotate-secret", id); !strings.HasPrefix(out, "api_secret") {
		t.Fatalf("apps rotate-secret:\n%s", out)
	}
	first := cli("apps", "show", id, "--json")
	var shown wire.App
	if err := json.Unmarshal([]byte(first), &shown); err != nil || len(shown.SigningKeys) != 1 {
		t.Fatalf("apps show --json: signing keys %+v, %v", shown.SigningKeys, err)
	}
	rotated := cli("apps", "signing-keys", "rotate", id)
	if !regexpLine(rotated, "active", "true") || !regexpLine(rotated, "algorithm", "Ed25519") {
		t.Fatalf("apps signing-keys rotate:\n%s", rotated)
	}
	if out := cli("apps", "show", id); !strings.Contains(out, shown.SigningKeys[0].ID) || !strings.Contains(out, firstField(rotated)+" Ed25519") {
		t.Fatalf("apps show lists both keys:\n%s", out)
	}
	if out := cli("apps", "signing-keys", "retire", id, shown.SigningKeys[0].ID); out != "done\n" {
		t.Fatalf("apps signing-keys retire: %q", out)
	}

	rows, err := csv.NewReader(strings.NewReader(cli("licenses", "create", "--app", id, "--count", "2", "--minutes", "60", "--note", "shop", "--csv"))).ReadAll()
	if err != nil || len(rows) != 3 || strings.Join(rows[0], ",") != "code,minutes,lifetime,note" || rows[1][1] != "60" || rows[1][2] != "false" || rows[1][3] != "shop" {
		t.Fatalf("licenses create --csv: %v %v", rows, err)
	}
	code := rows[1][0]
	if out := cli("licenses", "create", "--app", id, "--lifetime"); !strings.HasPrefix(out, "ID") || !strings.Contains(out, "true") {
		t.Fatalf("licenses create:\n%s", out)
	}
	if out := cli("licenses", "list", "--app", id, "--limit", "2"); strings.Count(out, "\n") != 4 || !strings.Contains(out, "(more: --after ") {
		t.Fatalf("licenses list --limit 2:\n%s", out)
	}
	found := cli("licenses", "list", "--app", id, "--code", strings.ToLower(code))
	if !regexpLine(found, "code_hint", code[len(code)-4:]) || !regexpLine(found, "used_at", "-") {
		t.Fatalf("licenses list --code:\n%s", found)
	}
	licenseID := firstField(found)
	if out := cli("licenses", "show", "--app", id, licenseID); !regexpLine(out, "note", "shop") {
		t.Fatalf("licenses show:\n%s", out)
	}
	if out := cli("licenses", "delete", "--app", id, licenseID); out != "done\n" {
		t.Fatalf("licenses delete: %q", out)
	}

	app, err := s.Service.App(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Service.SignUpWithLicense(context.Background(), app, rows[2][0], "")
	if err != nil {
		t.Fatal(err)
	}
	if out := cli("users", "list", "--app", id); !strings.Contains(out, u.ID) || !strings.HasPrefix(out, "ID") {
		t.Fatalf("users list:\n%s", out)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	if out := cli("apps", "activity", id, "--days", "2"); !strings.HasPrefix(out, "DAY") || strings.Count(out, "\n") != 3 ||
		!slices.ContainsFunc(strings.Split(out, "\n"), func(l string) bool { return slices.Equal(strings.Fields(l), []string{today, "1", "1"}) }) {
		t.Fatalf("apps activity: want today's line with one sign-up and one activation:\n%s", out)
	}
	if out := cli("users", "grant", "--app", id, u.ID, "--minutes", "30", "--note", "support"); !regexpLine(out, "type", "grant") || !regexpLine(out, "minutes", "30") {
		t.Fatalf("users grant:\n%s", out)
	}
	if out, err := runCommandWithInput(t, "a new passphrase 7\n", "users", "reset-password", "--app", id, u.ID, "--address", s.Addr); err != nil || out != "done\n" {
		t.Fatalf("users reset-password: %q %v", out, err)
	}
	if _, err := s.Service.Login(context.Background(), app, access.LoginRequest{
		Credentials: access.Credentials{Username: u.Username, Password: "a new passphrase 7"}}); err != nil {
		t.Fatalf("login with the reset password: %v", err)
	}
	for _, action := range [][]string{{"ban", "--reason", "spam"}, {"unban"}, {"reset-devices"}, {"end-sessions"}} {
		if out := cli(append([]string{"users", action[0], "--app", id, u.ID}, action[1:]...)...); out != "done\n" {
			t.Fatalf("users %s: %q", action[0], out)
		}
	}

	if out := cli("vars", "set", "--app", id, "motd", "hello there"); !regexpLine(out, "value", "hello there") {
		t.Fatalf("vars set:\n%s", out)
	}
	if out := cli("vars", "list", "--app", id); !strings.HasPrefix(out, "NAME") || !strings.Contains(out, "hello there") {
		t.Fatalf("vars list:\n%s", out)
	}
	if out := cli("vars", "delete", "--app", id, "motd"); out != "done\n" {
		t.Fatalf("vars delete: %q", out)
	}

	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("file contents"), 0o600); err != nil {
		t.Fatal(err)
	}
	up := cli("files", "upload", "--app", id, notes)
	if !regexpLine(up, "name", "notes.txt") || !regexpLine(up, "size", "13") {
		t.Fatalf("files upload:\n%s", up)
	}
	if out := cli("files", "list", "--app", id, "--json"); !strings.Contains(out, `"files":[{`) || !strings.Contains(out, `"next":null`) {
		t.Fatalf("files list --json: %s", out)
	}
	if out := cli("files", "delete", "--app", id, firstField(up)); out != "done\n" {
		t.Fatalf("files delete: %q", out)
	}
	if out := cli("users", "delete", "--app", id, u.ID); out != "done\n" {
		t.Fatalf("users delete: %q", out)
	}
	if out := cli("apps", "delete", id); out != "done\n" {
		t.Fatalf("apps delete: %q", out)
	}
}

func TestCommand_ErrorsPrintTheProblemDetailAndFields(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	app := s.CreateApp(t, access.AppSettings{})
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"users", "show", "--app", app.ID, "00000000-0000-0000-0000-000000000000"}, "The user does not exist."},
		{[]string{"apps", "update", app.ID, "--max-devices", "0"}, "The request is not valid.\n  max_devices must be 1 to 100"},
		{[]string{"licenses", "list", "--app", app.ID, "--used", "maybe"}, "--used must be true or false"},
	} {
		_, err := runCommand(t, append(tt.args, "--address", s.Addr)...)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%v: error %q, want %q", tt.args, err, tt.want)
		}
	}
}

func TestCommand_LicenseLookupKeepsTheCodeOutOfTheURI(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	app := s.CreateApp(t, access.AppSettings{})
	ls, err := s.Service.CreateLicenses(context.Background(), app.ID, access.LicenseRequest{Count: 1, Grant: access.Grant{GrantsLifetimeAccess: true}})
	if err != nil {
		t.Fatal(err)
	}
	code := ls[0].Code
	out := mustRun(t, "licenses", "list", "--app", app.ID, "--code", code, "--address", s.Addr)
	if !strings.Contains(out, ls[0].ID) {
		t.Fatalf("lookup printed\n%s", out)
	}
	uris := s.RequestURIs()
	if len(uris) == 0 {
		t.Fatal("no request reached the server")
	}
	for _, uri := range uris {
		if strings.Contains(uri, code) {
			t.Fatalf("request URI %q carries the code", uri)
		}
	}
}

func TestCommand_UploadStoresTheDetectedMediaType(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	app := s.CreateApp(t, access.AppSettings{})
	dir := t.TempDir()
	for _, tt := range []struct {
		file, contents string
		flags          []string
		want           string
	}{
		{"notes.txt", "some notes", nil, "text/plain; charset=utf-8"},
		{"logo", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", nil, "image/png"},
		{"data.txt", "a,b", []string{"--mime-type", "text/csv"}, "text/csv"},
	} {
		path := filepath.Join(dir, tt.file)
		if err := os.WriteFile(path, []byte(tt.contents), 0o600); err != nil {
			t.Fatal(err)
		}
		out := mustRun(t, append([]string{"files", "upload", "--app", app.ID, path, "--address", s.Addr}, tt.flags...)...)
		if !regexpLine(out, "mime_type", tt.want) {
			t.Errorf("%s: uploaded\n%s\nwant mime_type %s", tt.file, out, tt.want)
		}
	}
}

func TestCommand_UsersShowPrintsMembershipReadably(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	on := true
	app := s.CreateApp(t, access.AppSettings{DeviceAuth: &on})
	ctx := context.Background()
	minutes := int64(60)
	ls, err := s.Service.CreateLicenses(ctx, app.ID, access.LicenseRequest{Count: 2, Grant: access.Grant{Minutes: &minutes}})
	if err != nil {
		t.Fatal(err)
	}
	active, err := s.Service.SignUpWithLicense(ctx, &app.App, ls[0].Code, "hw-1")
	if err != nil {
		t.Fatal(err)
	}
	inactive, err := s.Service.SignUp(ctx, &app.App, access.SignUpRequest{Username: "nina", Password: "glass tulip 42", HardwareID: "hw-2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		user       string
		membership string
	}{
		{active.ID, "active until 20"},
		{inactive.ID, "inactive, never activated"},
	} {
		out := mustRun(t, "users", "show", "--app", app.ID, tt.user, "--address", s.Addr)
		if !regexpLine(out, "membership", tt.membership) || strings.ContainsAny(out, "{}") ||
			!strings.Contains(out, "HARDWARE_ID") {
			t.Errorf("users show:\n%s\nwant membership %q and no raw JSON", out, tt.membership)
		}
	}
	out := mustRun(t, "users", "show", "--app", app.ID, active.ID, "--address", s.Addr)
	if !strings.Contains(out, "TYPE") || !strings.Contains(out, "license") {
		t.Errorf("users show lists no activations:\n%s", out)
	}
}

// regexpLine reports whether out has a "label  value..." row whose value
// starts with prefix.
func regexpLine(out, label, prefix string) bool {
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, label+" "); ok && strings.HasPrefix(strings.TrimSpace(rest), prefix) {
			return true
		}
	}
	return false
}

// firstField is the value of an object's first row (its id).
func firstField(out string) string {
	line, _, _ := strings.Cut(out, "\n")
	f := strings.Fields(line)
	if len(f) < 2 {
		return ""
	}
	return f[1]
}
