package webhook_test

import (
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/webhook"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// cheapArgon2 keeps sign-ups fast in tests.
var cheapArgon2 = access.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}

const password = "vortex-lamp-71"

// rig is a service whose events go to the webhook outbox, over a real
// store, with an application.
type rig struct {
	store   access.Store
	svc     *access.Service
	app     *access.App
	fileKey []byte
}

func newRig(t testing.TB, store access.Store, fileKey []byte, appID string) *rig {
	t.Helper()
	if fileKey == nil {
		fileKey = make([]byte, 32)
		_, _ = rand.Read(fileKey)
	}
	outbox := access.NewWebhookOutbox(store, access.WebhookOutboxConfig{OnError: func(err error) { t.Errorf("outbox: %v", err) }})
	r := &rig{store: store, fileKey: fileKey,
		svc: access.NewService(store, access.Config{Argon2: cheapArgon2, FileKey: fileKey, Listeners: []access.EventListener{outbox.Listen}})}
	ctx := context.Background()
	if appID == "" {
		name := "hooked"
		app, err := r.svc.CreateApp(ctx, access.AppSettings{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		appID = app.ID
	}
	app, err := r.svc.App(ctx, appID)
	if err != nil {
		t.Fatal(err)
	}
	r.app = app
	return r
}

// hook adds an endpoint at url for events (every webhook event if none).
func (r *rig) hook(t testing.TB, url string, events ...access.EventKind) *access.NewWebhook {
	t.Helper()
	if len(events) == 0 {
		events = access.WebhookEvents
	}
	w, err := r.svc.CreateWebhook(context.Background(), r.app.ID, access.WebhookSettings{URL: &url, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (r *rig) signUp(t testing.TB, name string) *access.UserView {
	t.Helper()
	u, err := r.svc.SignUp(context.Background(), r.app, access.SignUpRequest{Username: name, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// onlyDelivery returns an endpoint's delivery, failing the test unless it
// has exactly one.
func (r *rig) onlyDelivery(t testing.TB, webhookID string) access.WebhookDelivery {
	t.Helper()
	page, err := r.svc.Deliveries(context.Background(), r.app.ID, webhookID, "", 2)
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("deliveries %+v, %v; want one", page.Items, err)
	}
	return page.Items[0]
}

// run starts a dispatcher of the rig's store, allowed to reach the
// loopback receivers, and stops it when the test ends.
func (r *rig) run(t testing.TB, cfg webhook.Config) *webhook.Dispatcher {
	t.Helper()
	cfg.Key = access.WebhookKey(r.fileKey)
	cfg.AllowPrivateNetworks = true
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 20 * time.Millisecond
	}
	cfg.OnError = func(err error) { t.Logf("dispatcher: %v", err) }
	d := webhook.New(r.store, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return d
}

// received is one request a receiver got.
type received struct {
	at                   time.Time
	id, stamp, signature string
	body                 []byte
}

// receiver is a real HTTP endpoint that records requests and answers
// with answer(i) for the i-th (from 0).
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []received
	more chan struct{}
}

func newReceiver(t testing.TB, answer func(i int, w http.ResponseWriter)) *receiver {
	t.Helper()
	rc := &receiver{more: make(chan struct{}, 1000)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		i := len(rc.got)
		rc.got = append(rc.got, received{at: time.Now(), id: r.Header.Get(webhook.HeaderID), stamp: r.Header.Get(webhook.HeaderTimestamp),
			signature: r.Header.Get(webhook.HeaderSignature), body: body})
		rc.mu.Unlock()
		rc.more <- struct{}{}
		if answer != nil {
			answer(i, w)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// wait returns the first n requests, failing the test after timeout.
func (rc *receiver) wait(t testing.TB, n int, timeout time.Duration) []received {
	t.Helper()
	deadline := time.After(timeout)
	for {
		rc.mu.Lock()
		if len(rc.got) >= n {
			out := append([]received(nil), rc.got...)
			rc.mu.Unlock()
			return out
		}
		have := len(rc.got)
		rc.mu.Unlock()
		select {
		case <-rc.more:
		case <-deadline:
			t.Fatalf("the receiver got %d requests in %s, want %d", have, timeout, n)
		}
	}
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.got)
}
