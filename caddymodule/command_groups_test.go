package caddymodule

import (
	"strings"
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
)

func TestCommand_AnUnknownSubcommandFailsAndNamesIt(t *testing.T) {
	isolate(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown command "bogus" for "app-access"`},
		{[]string{"apps", "bogus"}, `unknown command "bogus" for "app-access apps"`},
		{[]string{"licenses", "lst"}, `did you mean list?`},
		{[]string{"apps", "signing-keys", "rotat", "x"}, `did you mean rotate?`},
		{[]string{"webhooks", "update", "x"}, `unknown command "update" for "app-access webhooks"`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, err := runCommand(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one with %q; printed\n%s", err, tt.want, out)
			}
		})
	}
}

func TestCommand_AGroupWithoutASubcommandPrintsItsHelp(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{}, {"apps"}, {"users"}, {"apps", "signing-keys"}} {
		out, err := runCommand(t, args...)
		if err != nil || !strings.Contains(out, "Available Commands") {
			t.Fatalf("app-access %v: %v\n%s", args, err, out)
		}
	}
}

func TestCommand_UsageNamesEverySubcommand(t *testing.T) {
	isolate(t)
	registered, ok := caddycmd.Commands()["app-access"]
	if !ok {
		t.Fatal("app-access is not registered")
	}
	out, _ := runCommand(t, "--help")
	section := out[strings.Index(out, "Available Commands:"):]
	for _, line := range strings.Split(section, "\n")[1:] {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			break
		}
		if name := fields[0]; name != "help" && name != "completion" && !strings.Contains(registered.Usage, name) {
			t.Errorf("usage %q does not name %s", registered.Usage, name)
		}
	}
}
