package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/dashboard"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/webhook"
)

var cheapArgon2 = access.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}

const (
	adminName     = "root"
	adminPassword = "correct horse battery"
)

// env is a real service on a real SQLite store, with the dashboard under
// /admin/ and the client API under /api/ on one httptest server, as the
// top-level Caddyfile serves them.
type env struct {
	store access.Store
	svc   *access.Service
	srv   *httptest.Server
	app   *access.NewApp
}

func newEnv(t testing.TB) *env {
	t.Helper()
	store := storetest.SQLite(t)
	audit := access.NewAuditListener(store, func(err error) { t.Errorf("audit log: %v", err) })
	outbox := access.NewWebhookOutbox(store, access.WebhookOutboxConfig{OnError: func(err error) { t.Errorf("webhook outbox: %v", err) }})
	svc := access.NewService(store, access.Config{Argon2: cheapArgon2, Listeners: []access.EventListener{audit, outbox.Listen}})
	dash, err := dashboard.New(dashboard.Config{Prefix: "/admin", Service: func() (*access.Service, error) { return svc, nil }})
	if err != nil {
		t.Fatal(err)
	}
	client := http.StripPrefix("/api", clientapi.NewHandler(svc, nil, nil))
	mux := http.NewServeMux()
	mux.Handle("/admin/", dash)
	mux.Handle("/api/", client)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	if _, err := svc.CreateAdmin(ctx, adminName, adminPassword); err != nil {
		t.Fatal(err)
	}
	name := "shop app"
	app, err := svc.CreateApp(ctx, access.AppSettings{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	return &env{store: store, svc: svc, srv: srv, app: app}
}

// newApp makes another application.
func (e *env) newApp(t testing.TB, name string) *access.NewApp {
	t.Helper()
	app, err := e.svc.CreateApp(context.Background(), access.AppSettings{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// key makes a seller key of app with scopes and returns its secret.
func (e *env) key(t testing.TB, appID string, scopes ...string) *access.NewSellerKey {
	t.Helper()
	k, err := e.svc.CreateSellerKey(context.Background(), appID, "test key", scopes)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// call sends a management API request with a seller key.
func (e *env) call(t testing.TB, key, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+"/admin/api"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return do(t, http.DefaultClient, req)
}

func do(t testing.TB, c *http.Client, req *http.Request) (int, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// browser is an HTTP client with a cookie jar that sends the headers a
// same-origin browser form would.
type browser struct {
	t    testing.TB
	e    *env
	c    *http.Client
	csrf string
}

func (e *env) browser(t testing.TB) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, e: e, c: &http.Client{Jar: jar}}
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) get(path string) (*http.Response, string) {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.e.srv.URL+path, nil)
	return b.send(req)
}

func (b *browser) send(req *http.Request) (*http.Response, string) {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if m := csrfInput.FindStringSubmatch(string(body)); m != nil {
		b.csrf = m[1]
	}
	return resp, string(body)
}

// post submits a form as a same-origin page would; csrf is added unless
// the form has it.
func (b *browser) post(path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	if _, ok := form["csrf"]; !ok && b.csrf != "" {
		form.Set("csrf", b.csrf)
	}
	req, _ := http.NewRequest(http.MethodPost, b.e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Origin", b.e.srv.URL)
	return b.send(req)
}

// signIn signs in as the test administrator.
func (b *browser) signIn() {
	b.t.Helper()
	resp, body := b.post("/admin/signin", url.Values{"username": {adminName}, "password": {adminPassword}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Applications") {
		b.t.Fatalf("sign-in: %d\n%s", resp.StatusCode, body)
	}
}

// hook adds an endpoint of the env's application at url for events.
func (e *env) hook(t testing.TB, url string, events ...access.EventKind) *access.NewWebhook {
	t.Helper()
	h, err := e.svc.CreateWebhook(context.Background(), e.app.ID, access.WebhookSettings{URL: &url, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// storedWebhook reads an endpoint of the env's application as stored.
func (e *env) storedWebhook(t testing.TB, id string) *access.Webhook {
	t.Helper()
	h, err := e.svc.Webhook(context.Background(), e.app.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// dispatch sends the store's due deliveries (to private addresses too,
// such as an httptest receiver) until the returned stop is called or the
// test ends. A failed attempt is final: the retry window is a millisecond.
func (e *env) dispatch(t testing.TB) (stop func()) {
	t.Helper()
	d := webhook.New(e.store, webhook.Config{Key: access.WebhookKey(nil), AllowPrivateNetworks: true, PollInterval: 10 * time.Millisecond,
		Timeout: 5 * time.Second, Backoff: access.WebhookBackoff{Window: time.Millisecond}, OnError: func(err error) { t.Errorf("dispatcher: %v", err) }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

// auditBy is the newest audit entry of action on the env's application;
// the test fails without one.
func (e *env) auditBy(t testing.TB, action string) access.AuditEntry {
	t.Helper()
	pg, err := e.svc.AuditLog(context.Background(), e.app.ID, access.AuditFilter{Action: action}, "", access.MaxPageSize)
	if err != nil || len(pg.Items) == 0 {
		t.Fatalf("no %s in the audit log (%v)", action, err)
	}
	return pg.Items[len(pg.Items)-1]
}
