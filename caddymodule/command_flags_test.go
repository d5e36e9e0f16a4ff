package caddymodule

import (
	"context"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
)

func TestCommand_AFlagThatWouldBeIgnoredIsRefused(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	name := "flags"
	app := s.CreateApp(t, access.AppSettings{Name: &name}).App.ID
	rows, err := csv.NewReader(strings.NewReader(mustRun(t, "licenses", "create", "--app", app, "--minutes", "60", "--csv", "--address", s.Addr))).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("licenses create --csv: %v %v", rows, err)
	}
	code := rows[1][0]
	created, err := s.Service.App(context.Background(), app)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Service.SignUp(context.Background(), created, access.SignUpRequest{Username: "flags-user", Password: "vortex-lamp-71"})
	if err != nil {
		t.Fatal(err)
	}
	user := u.ID
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		// The client leaves days out when it is 0, and the server then
		// answers its default of 14 days.
		{"activity --days 0", []string{"apps", "activity", app, "--days", "0"}, "--days must be from 1 to 366"},
		{"activity --days -3", []string{"apps", "activity", app, "--days", "-3"}, "--days must be from 1 to 366"},
		// --code finds one license whatever the filter: an unused code
		// was printed for --used true.
		{"licenses list --code --used", []string{"licenses", "list", "--app", app, "--code", code, "--used", "true"}, "[code used]"},
		{"licenses list --code --limit", []string{"licenses", "list", "--app", app, "--code", code, "--limit", "5"}, "[code limit]"},
		{"licenses list --code --after", []string{"licenses", "list", "--app", app, "--code", code, "--after", "x"}, "[code after]"},
		// A --minutes of 0 or below was dropped, and the server asked for
		// the minutes that had been given.
		{"licenses create --minutes 0", []string{"licenses", "create", "--app", app, "--minutes", "0"}, "minutes must be a positive number"},
		{"licenses create --minutes -60", []string{"licenses", "create", "--app", app, "--minutes", "-60"}, "minutes must be a positive number"},
		{"users grant --minutes -60", []string{"users", "grant", "--app", app, user, "--minutes", "-60"}, "minutes must be a positive number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCommand(t, append(tt.args, "--address", s.Addr)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one with %q; printed\n%s", err, tt.want, out)
			}
		})
	}
}

func TestCommand_AppsUpdateHelpShowsNoDefaultsItWouldNotApply(t *testing.T) {
	isolate(t)
	update := mustRun(t, "apps", "update", "--help")
	own := update[strings.Index(update, "Flags:"):strings.Index(update, "Global Flags:")]
	if strings.Contains(own, "(default") || !strings.Contains(update, "keep their value") {
		t.Fatalf("apps update --help shows defaults, though a flag not given keeps the current value:\n%s", update)
	}
	create := mustRun(t, "apps", "create", "--help")
	for _, want := range []string{`--max-devices int              devices per user (default 1)`, `(default "24h")`, `(default "72h")`, `(default 10)`, `(default 8)`} {
		if !strings.Contains(create, want) {
			t.Errorf("apps create --help lacks %s:\n%s", want, create)
		}
	}
}
