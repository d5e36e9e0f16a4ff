package caddymodule

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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
	before := scrape(t)[`app_access_webhook_attempts_total{outcome="delivered"}`]
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
	for deadline := time.Now().Add(5 * time.Second); scrape(t)[`app_access_webhook_attempts_total{outcome="delivered"}`] != before+1; {
		if time.Now().After(deadline) {
			t.Fatal("app_access_webhook_attempts_total did not count the delivery")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWebhooks_AnEventNotDeliveredBeforeTheServerStopsArrivesAfterItStarts(t *testing.T) {
	var up atomic.Bool
	ids := make(chan string, 10)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			ids <- "refused"
			return
		}
		ids <- r.Header.Get("webhook-id")
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	s := &server{t: t, tester: newTester(t), store: defaultStore(t),
		webhooks: "webhooks {\n\t\t\tallow_private_networks\n\t\t\tpoll_interval 100ms\n\t\t\tretry_base 500ms\n\t\t}"}
	s.tester.InitServer(s.config("", ""), "caddyfile")
	a := createApp(t, nil)
	r := request(t, "POST", adminBase+"/apps/"+a.id+"/webhooks", nil, map[string]any{"url": receiver.URL, "events": []string{"user.signed_up"}})
	expect(t, r, 201, "")
	signUp(t, a, "survivor", "vortex-lamp-71")
	select {
	case <-ids: // the first attempt failed: the event is not delivered
	case <-time.After(10 * time.Second):
		t.Fatal("no first attempt")
	}
	// Stop the server: a config without the app closes the store and ends
	// the dispatcher.
	s.tester.InitServer(fmt.Sprintf("{\n\t%s\n}\n:%d {\n\trespond 404\n}\n", globalOptions(), apiPort), "caddyfile")
	for len(ids) > 0 {
		<-ids
	}
	up.Store(true)
	time.Sleep(time.Second) // the retry would have been due now
	select {
	case id := <-ids:
		t.Fatalf("a stopped server sent %s", id)
	default:
	}
	s.tester.InitServer(s.config("", ""), "caddyfile")
	select {
	case id := <-ids:
		if id == "refused" || id == "" {
			t.Fatalf("webhook-id %q", id)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the event did not arrive after the restart")
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
