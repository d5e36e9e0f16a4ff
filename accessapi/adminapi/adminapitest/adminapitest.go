// Package adminapitest serves the real management API over the real store
// (a fresh database of storetest) on an httptest server, for the tests of
// the handlers and of their clients. Nothing here is a mock. A test binary
// that uses it calls storetest.Main from its TestMain.
package adminapitest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminapi"
	"github.com/appaccess/appaccess/accessapi/mongostore"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// CheapArgon2 keeps password hashing fast in tests.
var CheapArgon2 = access.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}

// Server is a running management API.
type Server struct {
	// URL is the server's root, http://127.0.0.1:port.
	URL string
	// Addr is its host:port, the bare admin address form.
	Addr string
	// Service is the service behind the routes, for fixtures the API
	// cannot make (users signing up).
	Service *access.Service
	// Store is the store behind the service, for fixtures no use case
	// makes (a delivery's outcome, which a dispatcher writes).
	Store access.Store

	mu   sync.Mutex
	uris []string
}

// New starts a server under adminapi.DefaultPrefix; it stops when the
// test ends.
func New(t testing.TB) *Server {
	t.Helper()
	store := mongostore.New(storetest.Database(t))
	if err := store.EnsureIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	return NewOver(t, store)
}

// NewOver starts a server like New over the given store.
func NewOver(t testing.TB, store access.Store) *Server {
	t.Helper()
	// The audit log and the webhook outbox listen, as in the server.
	audit := access.NewAuditListener(store, func(err error) { t.Errorf("audit log: %v", err) })
	outbox := access.NewWebhookOutbox(store, access.WebhookOutboxConfig{OnError: func(err error) { t.Errorf("webhook outbox: %v", err) }})
	s := &Server{Store: store, Service: access.NewService(store, access.Config{Argon2: CheapArgon2,
		Listeners: []access.EventListener{audit, outbox.Listen}})}
	api := adminapi.NewHandler(adminapi.DefaultPrefix, func() (*access.Service, error) { return s.Service, nil }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.uris = append(s.uris, r.RequestURI)
		s.mu.Unlock()
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL, s.Addr = srv.URL, strings.TrimPrefix(srv.URL, "http://")
	return s
}

// RequestURIs are the URIs of every request the server was sent, as an
// admin endpoint's log would show them.
func (s *Server) RequestURIs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.uris...)
}

// CreateApp creates an application through the service; settings.Name
// defaults to "test app".
func (s *Server) CreateApp(t testing.TB, settings access.AppSettings) *access.NewApp {
	t.Helper()
	if settings.Name == nil {
		name := "test app"
		settings.Name = &name
	}
	app, err := s.Service.CreateApp(context.Background(), settings)
	if err != nil {
		t.Fatal(err)
	}
	return app
}
