package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"

	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestAuditLog_ServedByTheServerAndPrunedPastTheRetention(t *testing.T) {
	for _, tt := range []struct {
		name    string
		options string
		pruned  bool
	}{
		{"the default retention keeps entries", "session_cleanup_interval 50ms", false},
		{"entries past audit_retention are pruned", "session_cleanup_interval 50ms\n\t\taudit_retention 1ms", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{t: t, tester: newTester(t), store: defaultStore(t) + "\n\t\t" + tt.options}
			s.tester.InitServer(s.config("", ""), "caddyfile")
			a := createApp(t, map[string]any{"name": "audited"})
			entries := func() []wire.AuditEntry {
				r := request(t, "GET", adminBase+"/apps/"+a.id+"/audit", nil, nil)
				expect(t, r, 200, "")
				var page struct {
					Entries []wire.AuditEntry `json:"entries"`
				}
				if err := json.Unmarshal(r.raw, &page); err != nil {
					t.Fatal(err)
				}
				return page.Entries
			}
			deadline := time.Now().Add(10 * time.Second)
			got := entries()
			for tt.pruned && len(got) > 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
				got = entries()
			}
			if tt.pruned {
				if len(got) != 0 {
					t.Fatalf("entries left past the retention: %+v", got)
				}
				return
			}
			time.Sleep(300 * time.Millisecond) // several cleanups
			got = entries()
			if len(got) != 1 || got[0].Action != "app.created" || got[0].Principal.Kind != "admin_endpoint" || !strings.Contains(got[0].Principal.Name, ":") {
				t.Fatalf("entries %+v, want the app.created by the admin endpoint's caller", got)
			}
		})
	}
}

func TestCaddyfile_AuditRetention(t *testing.T) {
	caddytest.AssertAdapt(t, `{
	app_access {
		audit_retention 720h
	}
}
:8080 {
	app_access_api
}`, "caddyfile", `{
	"apps": {
		"app_access": {
			"audit_retention": 2592000000000000
		},
		"http": {
			"servers": {
				"srv0": {
					"listen": [
						":8080"
					],
					"routes": [
						{
							"handle": [
								{
									"handler": "app_access_api"
								}
							]
						}
					]
				}
			}
		}
	}
}`)
}

func TestCommand_AuditPrintsTheLogWithFilters(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	cli := func(args ...string) string { t.Helper(); return mustRun(t, append(args, "--address", s.Addr)...) }
	var created wire.App
	if err := json.Unmarshal([]byte(cli("apps", "create", "--name", "audited", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	id := created.ID
	cli("vars", "set", "--app", id, "motd", "hello")
	cli("apps", "rotate-secret", id)

	out := cli("audit", "--app", id)
	if !strings.HasPrefix(out, "TIME") || !strings.Contains(out, "app.created") || !strings.Contains(out, "variable.set") ||
		!strings.Contains(out, "app.secret_rotated") || !strings.Contains(out, "admin_endpoint 127.0.0.1:") {
		t.Fatalf("audit:\n%s", out)
	}
	if out := cli("audit", "--app", id, "--action", "variable.set"); strings.Count(out, "\n") != 2 || !strings.Contains(out, "motd") {
		t.Fatalf("audit --action variable.set:\n%s", out)
	}
	if out := cli("audit", "--app", id, "--limit", "1"); !strings.Contains(out, "(more: --after ") {
		t.Fatalf("audit --limit 1:\n%s", out)
	}
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	if out := cli("audit", "--app", id, "--since", future, "--json"); !strings.Contains(out, `"entries":[]`) {
		t.Fatalf("audit --since %s --json: %s", future, out)
	}
	if out, err := runCommand(t, "audit", "--app", id, "--until", "yesterday", "--address", s.Addr); err == nil || !strings.Contains(err.Error(), "--until") {
		t.Fatalf("audit --until yesterday: %v\n%s", err, out)
	}
	// Without --app: the server's own log.
	if out, err := runCommandWithInput(t, "a long enough phrase\n", "admins", "create", "--username", "erin", "--address", s.Addr); err != nil {
		t.Fatalf("admins create: %v\n%s", err, out)
	}
	if out := cli("audit"); !strings.Contains(out, "admin.created") || !strings.Contains(out, "erin") || strings.Contains(out, "app.created") {
		t.Fatalf("audit without --app:\n%s", out)
	}
}
