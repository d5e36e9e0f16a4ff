package caddymodule

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestCommand_WebhooksCreateListDeliveriesRedeliverDelete(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	cli := func(args ...string) string { t.Helper(); return mustRun(t, append(args, "--address", s.Addr)...) }
	var app wire.App
	if err := json.Unmarshal([]byte(cli("apps", "create", "--name", "hooked", "--json")), &app); err != nil {
		t.Fatal(err)
	}
	var hook wire.Webhook
	if err := json.Unmarshal([]byte(cli("webhooks", "create", "--app", app.ID, "--url", "https://example.com/hook",
		"--event", "user.signed_up", "--event", "user.banned", "--json")), &hook); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hook.Secret, "whsec_") || len(hook.Events) != 2 {
		t.Fatalf("created %+v", hook)
	}
	if out := cli("webhooks", "list", "--app", app.ID); !strings.Contains(out, hook.ID) || strings.Contains(out, hook.Secret) {
		t.Fatalf("webhooks list shows the secret or misses the endpoint:\n%s", out)
	}
	ctx := context.Background()
	a, err := s.Service.App(ctx, app.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Service.SignUp(ctx, a, access.SignUpRequest{Username: "watched", Password: "vortex-lamp-71"}); err != nil {
		t.Fatal(err)
	}
	out := cli("webhooks", "deliveries", "--app", app.ID, hook.ID)
	if !strings.Contains(out, "user.signed_up") || !strings.Contains(out, " pending ") {
		t.Fatalf("webhooks deliveries:\n%s", out)
	}
	page, err := s.Service.Deliveries(ctx, app.ID, hook.ID, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	d := page.Items[0]
	if _, err := runCommand(t, "webhooks", "redeliver", "--app", app.ID, hook.ID, d.ID, "--address", s.Addr); err == nil {
		t.Fatal("a pending delivery was redelivered")
	}
	d.Status, d.Attempts = access.DeliveryFailed, 1 // as a dispatcher records it
	if err := s.Store.UpdateDelivery(ctx, &d, 0); err != nil {
		t.Fatal(err)
	}
	if out := cli("webhooks", "redeliver", "--app", app.ID, hook.ID, d.ID); !regexpLine(out, "status", "pending") {
		t.Fatalf("webhooks redeliver:\n%s", out)
	}
	if out := cli("webhooks", "delete", "--app", app.ID, hook.ID); out != "done\n" {
		t.Fatalf("webhooks delete: %q", out)
	}
}

func TestCommand_WebhooksRotateSecretPrintsTheNewSecretAndTheOverlap(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	cli := func(args ...string) string { t.Helper(); return mustRun(t, append(args, "--address", s.Addr)...) }
	var app wire.App
	if err := json.Unmarshal([]byte(cli("apps", "create", "--name", "rotated", "--json")), &app); err != nil {
		t.Fatal(err)
	}
	var hook wire.Webhook
	if err := json.Unmarshal([]byte(cli("webhooks", "create", "--app", app.ID, "--url", "https://example.com/hook",
		"--event", "user.signed_up", "--json")), &hook); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		args    []string
		overlap bool // whether the old secret still signs
	}{
		{"the default overlap", nil, true},
		{"an overlap of an hour", []string{"--overlap", "1h"}, true},
		{"no overlap", []string{"--overlap", "0s"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := cli(append([]string{"webhooks", "rotate-secret", "--app", app.ID, hook.ID}, tt.args...)...)
			if !regexpLine(out, "secret", access.WebhookSecretPrefix) || strings.Contains(out, hook.Secret) {
				t.Fatalf("rotate-secret prints no new secret:\n%s", out)
			}
			if expires := regexpLine(out, "previous_secret_expires", "20"); expires != tt.overlap {
				t.Fatalf("rotate-secret shows the old secret's end: %t, want %t:\n%s", expires, tt.overlap, out)
			}
		})
	}
	if _, err := runCommand(t, "webhooks", "rotate-secret", "--app", app.ID, hook.ID, "--overlap", "169h", "--address", s.Addr); err == nil {
		t.Fatal("an overlap past seven days was accepted")
	}
}
