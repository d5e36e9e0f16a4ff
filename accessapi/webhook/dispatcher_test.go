package webhook_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/sqlitestore"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/webhook"
)

func TestDelivery_SubscribedEventsArriveSignedWithTheirPayload(t *testing.T) {
	r := newRig(t, storetest.SQLite(t), nil, "")
	rc := newReceiver(t, nil)
	h := r.hook(t, rc.URL, access.EventUserSignedUp, access.EventUserBanned)
	r.run(t, webhook.Config{})
	u := r.signUp(t, "alice")
	ctx := context.Background()
	if _, err := r.svc.CreateLicenses(ctx, r.app.ID, access.LicenseRequest{Count: 1, Grant: access.Grant{GrantsLifetimeAccess: true}}); err != nil {
		t.Fatal(err) // licenses.created: not subscribed
	}
	if err := r.svc.BanUser(ctx, r.app.ID, u.ID, "chargeback"); err != nil {
		t.Fatal(err)
	}
	got := rc.wait(t, 2, 10*time.Second)
	time.Sleep(100 * time.Millisecond)
	if n := rc.count(); n != 2 {
		t.Fatalf("%d requests, want 2 (licenses.created is not subscribed)", n)
	}
	// Deliveries are concurrent: the order of arrival is not the events'.
	if strings.Contains(string(got[0].body), "user.banned") {
		got[0], got[1] = got[1], got[0]
	}
	for i, want := range []string{
		fmt.Sprintf(`"type":"user.signed_up",.*"data":{"app_id":"%s","user_id":"%s","username":"alice"}`, r.app.ID, u.ID),
		fmt.Sprintf(`"type":"user.banned",.*"data":{"app_id":"%s","user_id":"%s","reason":"chargeback"}`, r.app.ID, u.ID),
	} {
		if !matches(want, string(got[i].body)) {
			t.Errorf("body %d %s, want %s", i, got[i].body, want)
		}
		if err := webhook.Verify(h.Secret, got[i].id, got[i].stamp, got[i].signature, got[i].body, time.Now(), 5*time.Minute); err != nil {
			t.Errorf("request %d: %v", i, err)
		}
		if err := webhook.Verify(access.NewWebhookSecret(), got[i].id, got[i].stamp, got[i].signature, got[i].body, time.Now(), 5*time.Minute); err == nil {
			t.Errorf("request %d verifies under another secret", i)
		}
	}
	waitStatus(t, r, h.ID, access.DeliveryDelivered)
	page, err := r.svc.Deliveries(ctx, r.app.ID, h.ID, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Items[0].ID != got[1].id || page.Items[0].Status != access.DeliveryDelivered || page.Items[0].LastStatus != 204 {
		t.Fatalf("delivery log %+v", page.Items)
	}
}

func TestDelivery_KilledBeforeDeliveryTheEventArrivesAfterARestart(t *testing.T) {
	dir := t.TempDir()
	store, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, store, nil, "")
	rc := newReceiver(t, nil)
	r.hook(t, rc.URL, access.EventUserSignedUp)
	// No dispatcher runs: the server is stopped once the client has its
	// answer, before anything was sent.
	u := r.signUp(t, "bob")
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if rc.count() != 0 {
		t.Fatal("sent before the restart")
	}

	reopened, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reopened.Close() })
	restarted := newRig(t, reopened, r.fileKey, r.app.ID)
	restarted.run(t, webhook.Config{})
	got := rc.wait(t, 1, 10*time.Second)
	if !strings.Contains(string(got[0].body), u.ID) {
		t.Fatalf("body %s does not name user %s", got[0].body, u.ID)
	}
}

func TestDelivery_A500AnsweringReceiverGetsRetriesWithGrowingWaits(t *testing.T) {
	r := newRig(t, storetest.SQLite(t), nil, "")
	const failures = 4
	rc := newReceiver(t, func(i int, w http.ResponseWriter) {
		if i < failures {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	h := r.hook(t, rc.URL)
	base := 100 * time.Millisecond
	r.run(t, webhook.Config{Backoff: access.WebhookBackoff{Base: base}, PollInterval: 10 * time.Millisecond})
	r.signUp(t, "carol")
	got := rc.wait(t, failures+1, 20*time.Second)
	for i := 1; i < len(got); i++ {
		if got[i].id != got[0].id {
			t.Fatalf("attempt %d has webhook-id %s, want the first's %s", i+1, got[i].id, got[0].id)
		}
	}
	// Waits of Base, Base, 2 Base, 4 Base, each ±20%: never shorter (the
	// last is longer than any jittered Base); later only by the machine's
	// load, which on a busy 2-core machine was over a second.
	for i, want := range []time.Duration{base, base, 2 * base, 4 * base} {
		wait := got[i+1].at.Sub(got[i].at)
		if wait < want*8/10-10*time.Millisecond || wait > want*12/10+3*time.Second {
			t.Errorf("wait before attempt %d: %s, want about %s", i+2, wait, want)
		}
	}
	ctx := context.Background()
	var d *access.WebhookDelivery
	var attempts []access.DeliveryAttempt
	deadline := time.Now().Add(5 * time.Second)
	for {
		page, err := r.svc.Deliveries(ctx, r.app.ID, h.ID, "", 10)
		if err != nil || len(page.Items) != 1 {
			t.Fatalf("deliveries %+v, %v", page.Items, err)
		}
		if d, attempts, err = r.svc.Delivery(ctx, r.app.ID, h.ID, page.Items[0].ID); err != nil {
			t.Fatal(err)
		}
		if d.Status == access.DeliveryDelivered || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d.Status != access.DeliveryDelivered || d.Attempts != failures+1 || len(attempts) != failures+1 {
		t.Fatalf("delivery %+v with %d attempts, want delivered after %d", d, len(attempts), failures+1)
	}
	for i, a := range attempts {
		wantStatus, wantErr := 500, "HTTP 500"
		if i == failures {
			wantStatus, wantErr = 200, ""
		}
		if a.Number != i+1 || !a.Finished || a.StatusCode != wantStatus || a.Error != wantErr {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
}

func TestDelivery_RetriesEndWhenTheWindowIsOverAndRedeliveryStartsAgain(t *testing.T) {
	r := newRig(t, storetest.SQLite(t), nil, "")
	var fail sync.Map
	fail.Store("on", true)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter) {
		if v, _ := fail.Load("on"); v == true {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	h := r.hook(t, rc.URL)
	r.run(t, webhook.Config{Backoff: access.WebhookBackoff{Base: 50 * time.Millisecond, Window: 2 * time.Second}})
	r.signUp(t, "dave")
	ctx := context.Background()
	d := waitStatus(t, r, h.ID, access.DeliveryFailed)
	if d.Attempts < 2 || d.LastStatus != http.StatusBadGateway {
		t.Fatalf("failed delivery %+v, want several attempts", d)
	}
	fail.Store("on", false)
	if _, err := r.svc.Redeliver(ctx, r.app.ID, h.ID, d.ID); err != nil {
		t.Fatal(err)
	}
	d = waitStatus(t, r, h.ID, access.DeliveryDelivered)
	if _, err := r.svc.Redeliver(ctx, r.app.ID, h.ID, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Redeliver(ctx, r.app.ID, h.ID, d.ID); access.CodeOf(err) != access.CodeConflict && err == nil {
		t.Logf("second redelivery while pending: %v", err) // it may already have been sent
	}
}

// waitStatus waits for the endpoint's newest delivery to reach status.
func waitStatus(t *testing.T, r *rig, webhookID string, status access.DeliveryStatus) *access.WebhookDelivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		page, err := r.svc.Deliveries(context.Background(), r.app.ID, webhookID, "", 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) == 1 && page.Items[0].Status == status {
			return &page.Items[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries %+v never %s", page.Items, status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDelivery_TwoDispatchersOnOneStoreSendEachAttemptOnce(t *testing.T) {
	for _, tt := range []struct {
		name  string
		store func(t testing.TB) access.Store
	}{
		{"SQLite", func(t testing.TB) access.Store { return storetest.SQLite(t) }},
		{"MongoDB", func(t testing.TB) access.Store { return storetest.Mongo(t) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, tt.store(t), nil, "")
			// The first attempt of every delivery fails, so each is sent
			// twice: attempts 1 and 2, each once.
			var mu sync.Mutex
			seen := map[string]int{}
			rc := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusOK) })
			rc.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				id := req.Header.Get(webhook.HeaderID)
				mu.Lock()
				seen[id]++
				n := seen[id]
				mu.Unlock()
				rc.more <- struct{}{}
				if n == 1 {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				w.WriteHeader(http.StatusNoContent)
			})
			h := r.hook(t, rc.URL, access.EventUserSignedUp)
			cfg := webhook.Config{Backoff: access.WebhookBackoff{Base: 50 * time.Millisecond}, PollInterval: 5 * time.Millisecond, Concurrency: 4}
			r.run(t, cfg)
			r.run(t, cfg)
			r.run(t, cfg)
			const users = 12
			for i := range users {
				r.signUp(t, fmt.Sprintf("user%02d", i))
			}
			for range 2 * users {
				select {
				case <-rc.more:
				case <-time.After(20 * time.Second):
					t.Fatal("not every attempt arrived")
				}
			}
			for deadline := time.Now().Add(10 * time.Second); ; {
				page, err := r.svc.Deliveries(context.Background(), r.app.ID, h.ID, "", 100)
				if err != nil {
					t.Fatal(err)
				}
				done := 0
				for _, d := range page.Items {
					if d.Status == access.DeliveryDelivered && d.Attempts == 2 {
						done++
					}
				}
				if done == users {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d deliveries delivered at the second attempt", done, users)
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond) // room for a duplicate to show
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != users {
				t.Fatalf("%d messages, want %d", len(seen), users)
			}
			for id, n := range seen {
				if n != 2 {
					t.Errorf("message %s sent %d times, want 2 (one failed attempt, one delivered)", id, n)
				}
			}
		})
	}
}

func TestSignUp_AHangingEndpointDoesNotDelayIt(t *testing.T) {
	r := newRig(t, storetest.SQLite(t), nil, "")
	release := make(chan struct{})
	rc := newReceiver(t, func(_ int, w http.ResponseWriter) { <-release })
	t.Cleanup(func() { close(release) }) // before the receiver closes
	r.hook(t, rc.URL)
	r.run(t, webhook.Config{Timeout: 30 * time.Second, Concurrency: 2})
	r.signUp(t, "first")
	rc.wait(t, 1, 10*time.Second) // the endpoint now hangs
	for i := range 5 {
		start := time.Now()
		r.signUp(t, fmt.Sprintf("next%d", i))
		if took := time.Since(start); took > time.Second {
			t.Fatalf("a sign-up took %s while the endpoint hangs", took)
		}
	}
}

func TestDelivery_PrivateDestinationsAreRefusedByDefault(t *testing.T) {
	r := newRig(t, storetest.SQLite(t), nil, "")
	rc := newReceiver(t, nil)
	h := r.hook(t, rc.URL)
	d := webhook.New(r.store, webhook.Config{Key: access.WebhookKey(r.fileKey), PollInterval: 10 * time.Millisecond,
		Backoff: access.WebhookBackoff{Base: time.Hour}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	defer func() { cancel(); <-done }()
	r.signUp(t, "erin")
	deadline := time.Now().Add(10 * time.Second)
	for {
		page, err := r.svc.Deliveries(context.Background(), r.app.ID, h.ID, "", 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) == 1 && page.Items[0].Attempts == 1 {
			if e := page.Items[0].LastError; !strings.Contains(e, "allow_private_networks") {
				t.Fatalf("last error %q, want the guard's refusal", e)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no attempt was made")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if rc.count() != 0 {
		t.Fatal("the loopback receiver was reached")
	}
}

func matches(pattern, s string) bool {
	parts := strings.Split(pattern, ".*")
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}
