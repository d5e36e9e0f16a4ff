package caddymodule

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/appaccess/appaccess/accessapi/webhook"
)

func TestWebhooks_ASignUpThroughTheServerReachesASignedEndpoint(t *testing.T) {
	type hit struct {
		header http.Header
		body   []byte
	}
	hits := make(chan hit, 10)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits <- hit{r.Header.Clone(), b}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	s := &server{t: t, tester: newTester(t), store: defaultStore(t),
		webhooks: "webhooks {\n\t\t\tallow_private_networks\n\t\t\tpoll_interval 100ms\n\t\t}"}
	s.tester.InitServer(s.config("", ""), "caddyfile")

	a := createApp(t, nil)
	r := request(t, "POST", adminBase+"/apps/"+a.id+"/webhooks", nil, map[string]any{"url": receiver.URL + "/hook", "events": []string{"user.signed_up"}})
	expect(t, r, 201, "")
	secret := r.str("secret")
	userID := signUp(t, a, "hooked", "vortex-lamp-71")
	select {
	case h := <-hits:
		if !strings.Contains(string(h.body), userID) || !strings.Contains(string(h.body), `"type":"user.signed_up"`) {
			t.Fatalf("body %s", h.body)
		}
		if err := webhook.Verify(secret, h.header.Get("webhook-id"), h.header.Get("webhook-timestamp"), h.header.Get("webhook-signature"),
			h.body, time.Now(), 5*time.Minute); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the endpoint got nothing")
	}
}

func TestWebhooks_TheCaddyfileBlockSetsTheOptions(t *testing.T) {
	a := new(App)
	d := caddyfile.NewTestDispenser(`app_access {
	webhooks {
		allow_private_networks
		timeout 5s
		concurrency 4
		retry_window 1h
	}
}`)
	if err := a.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	w := a.Webhooks
	if w == nil || !w.AllowPrivateNetworks || time.Duration(w.Timeout) != 5*time.Second || w.Concurrency != 4 || time.Duration(w.RetryWindow) != time.Hour {
		t.Fatalf("webhooks %+v", w)
	}
}
