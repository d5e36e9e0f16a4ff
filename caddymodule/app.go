// Package caddymodule adapts App Access to Caddy: the app_access app (the
// store and the service), the app_access_api and app_access_auth HTTP
// handlers, the admin API and the app-access command. The work is done by
// the accessapi packages; these are thin adapters.
package caddymodule

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/mongostore"
)

func init() {
	caddy.RegisterModule(new(App))
}

// App is the app_access Caddy app: it owns the store (MongoDB, or the
// embedded SQLite database) and the App Access service that the HTTP
// handlers and the admin API use.
type App struct {
	// MongoDBURI is the connection string of a MongoDB replica set or
	// sharded cluster. Placeholders such as {env.APP_ACCESS_MONGODB_URI}
	// are expanded. When empty, the embedded SQLite store in DataDir is
	// used.
	MongoDBURI string `json:"mongodb_uri,omitempty"`

	// Database is the MongoDB database name. Default: app_access.
	Database string `json:"database,omitempty"`

	// DataDir is the folder of the embedded SQLite database (app_access.db)
	// and, when FileKey is not set, of the file encryption key. Default: the app_access folder in
	// Caddy's data directory. Placeholders are expanded.
	DataDir string `json:"data_dir,omitempty"`

	// FileKey is the base64 encoding of the 32-byte key that encrypts files
	// marked encrypted. Placeholders are expanded. When empty, a key file
	// (file.key, mode 0600) in DataDir is used, created at the first start
	// of a store that holds no data; when the store (SQLite or MongoDB)
	// holds data and the key file is missing, the start fails (restore the
	// file): a new key could not open what the lost one sealed. Several
	// instances sharing one database must share this key.
	FileKey string `json:"file_key,omitempty"`

	// Staleness bounds how long an instance may act on data another
	// instance changed (bans, memberships, sessions, settings) while the
	// store's change feed cannot be read; while it can, changes reach every
	// instance within feed_interval and a read. Changes made through this
	// instance apply at once. Default: 5s.
	Staleness caddy.Duration `json:"staleness,omitempty"`

	// CredentialCacheTTL is how long a verified username and password are
	// remembered for legacy header auth. Default: 1m. A negative value
	// ("off" in the Caddyfile) switches the cache off: every header login
	// then runs argon2id.
	CredentialCacheTTL caddy.Duration `json:"credential_cache_ttl,omitempty"`

	// CacheEntries bounds each of the instance's caches (sessions, user
	// states, applications, devices, verified credentials). Entries stay
	// until the change feed evicts them or this bound displaces them.
	// Default: 125000, sized for 100,000 active users with a quarter to
	// spare (about 52 MiB of heap for 100,000 users' sessions and states,
	// 548 bytes a user).
	CacheEntries int `json:"cache_entries,omitempty"`

	// FeedInterval is how often the instance reads the store's change feed
	// to evict what other instances changed. Default: 250ms.
	FeedInterval caddy.Duration `json:"feed_interval,omitempty"`

	// FeedRetention is how long change feed entries are kept; an instance
	// that could not read the feed for longer empties its caches.
	// Default: 1h.
	FeedRetention caddy.Duration `json:"feed_retention,omitempty"`

	// SessionCleanupInterval is how often the periodic cleanup runs: it
	// deletes sessions expired for over a day, expired failed attempts,
	// audit entries past audit_retention and webhook deliveries past the
	// webhooks retention. Default: 10m.
	SessionCleanupInterval caddy.Duration `json:"session_cleanup_interval,omitempty"`

	// AuditRetention is how long audit log entries are kept; the periodic
	// cleanup (every session_cleanup_interval) deletes older ones.
	// Default: 8760h (365 days).
	AuditRetention caddy.Duration `json:"audit_retention,omitempty"`

	// DashboardIdleTimeout ends a dashboard session (app_access_admin)
	// after this long without a request, to within a minute (a quarter
	// of a timeout under 4m); a session
	// in use still ends 12h after its sign-in. Default: 30m; at most 12h.
	DashboardIdleTimeout caddy.Duration `json:"dashboard_idle_timeout,omitempty"`

	// JournalGrace is how old a record of the event journal must be
	// before the journal sweeper recovers it (the event of an instance
	// that stopped between a change and telling its listeners): longer
	// than any use case takes, so that the record of one still running is
	// left to it. Default: 1m. At least 30s; a shorter grace could recover
	// the event of a use case still running.
	JournalGrace caddy.Duration `json:"journal_grace,omitempty"`

	// JournalSweepInterval is how often the journal sweeper reads the
	// event journal for records older than journal_grace. A recovered
	// event is told at most journal_grace plus this after its change.
	// Default: 10s. At least 1s.
	JournalSweepInterval caddy.Duration `json:"journal_sweep_interval,omitempty"`

	// HashMemoryKiB is the memory of one argon2id password hash, in KiB.
	// Default: 19456 (19 MiB, OWASP's minimum at 2 iterations). At least
	// OWASP's minimum for hash_iterations (47104 at 1, 19456 at 2, 12288
	// at 3, 9216 at 4, 7168 from 5), at most 4 GiB. Each running hash
	// holds this much, hash_concurrency of them at once, and a login with
	// an unknown name costs one too. Hashes made with less are
	// rehashed at their next verified login.
	HashMemoryKiB uint32 `json:"hash_memory_kib,omitempty"`

	// HashIterations is the number of argon2id passes of a password hash.
	// Default: 2. From 1 to 64; see hash_memory_kib for the least cost.
	HashIterations uint32 `json:"hash_iterations,omitempty"`

	// HashConcurrency bounds concurrent argon2id hashes. Default: the
	// number of CPUs.
	HashConcurrency int `json:"hash_concurrency,omitempty"`

	// HashQueue bounds the password checks that wait for a hashing slot;
	// past it a login is answered 503 with Retry-After at once instead of
	// waiting. Default: 32 × hash_concurrency (a wait of about 0.8 s at
	// most).
	HashQueue int `json:"hash_queue,omitempty"`

	// Throttle sets the thresholds of the throttling of failed
	// credentials, license codes, application secrets and sign-ups.
	Throttle *ThrottleConfig `json:"throttle,omitempty"`

	// Webhooks tunes the delivery of webhooks: timeouts, retries, and
	// whether internal addresses may be reached (allow_private_networks).
	Webhooks *WebhooksConfig `json:"webhooks,omitempty"`

	uri, dataDir, fileKey string
	logger                *zap.Logger
	live                  atomic.Pointer[running]
	conn                  *connection
	stop                  chan struct{}
	stopped               sync.WaitGroup
}

// running is what a started App serves with.
type running struct {
	svc *access.Service
	api *clientapi.Handler
}

// CaddyModule returns the Caddy module information.
func (*App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "app_access", New: func() caddy.Module { return new(App) }}
}

// Provision expands and checks the settings. It starts nothing, so that
// `caddy validate` stays cheap.
func (a *App) Provision(ctx caddy.Context) error {
	a.logger = ctx.Logger()
	if err := registerMetrics(ctx.GetMetricsRegistry()); err != nil {
		return err
	}
	repl := caddy.NewReplacer()
	// Only known placeholders are replaced, so that braces in a password
	// survive.
	a.uri = repl.ReplaceKnown(a.MongoDBURI, "")
	a.fileKey = repl.ReplaceKnown(a.FileKey, "")
	a.dataDir = repl.ReplaceKnown(a.DataDir, "")
	if a.dataDir == "" {
		a.dataDir = filepath.Join(caddy.AppDataDir(), "app_access")
	}
	abs, err := filepath.Abs(a.dataDir)
	if err != nil {
		return fmt.Errorf("data_dir: %w", err)
	}
	a.dataDir = abs
	if a.Database == "" {
		a.Database = "app_access"
	}
	if a.uri != "" {
		if _, err := connstring.ParseAndValidate(a.uri); err != nil {
			return fmt.Errorf("mongodb_uri: not a valid MongoDB connection string: %s", redactURIError(err, a.uri))
		}
	}
	return nil
}

// Validate checks the settings that Provision cannot correct.
func (a *App) Validate() error {
	if a.fileKey != "" {
		if _, err := decodeFileKey(a.fileKey); err != nil {
			return fmt.Errorf("file_key: %w", err)
		}
	}
	if a.Staleness < 0 || a.SessionCleanupInterval < 0 || a.AuditRetention < 0 || a.FeedInterval < 0 || a.FeedRetention < 0 || a.CacheEntries < 0 ||
		a.JournalGrace < 0 || a.JournalSweepInterval < 0 {
		return errors.New("staleness, session_cleanup_interval, audit_retention, feed_interval, feed_retention, cache_entries, journal_grace and journal_sweep_interval must not be negative")
	}
	if a.JournalGrace != 0 && time.Duration(a.JournalGrace) < minJournalGrace {
		return fmt.Errorf("journal_grace must be at least %v (0 takes the default, 1m): a shorter grace could recover the event of a use case still running", minJournalGrace)
	}
	if a.JournalSweepInterval != 0 && time.Duration(a.JournalSweepInterval) < minJournalSweepInterval {
		return fmt.Errorf("journal_sweep_interval must be at least %v (0 takes the default, 10s)", minJournalSweepInterval)
	}
	if p := a.argon2(); p.Iterations > maxHashIterations || p.MemoryKiB < minHashMemoryKiB(p.Iterations) || p.MemoryKiB > maxHashMemoryKiB {
		return fmt.Errorf("hash_memory_kib %d with hash_iterations %d: iterations must be at most %d, and memory at least %d KiB at %d iterations (OWASP's least argon2id cost: 46 MiB at 1, 19 at 2, 12 at 3, 9 at 4, 7 from 5) and at most %d KiB",
			p.MemoryKiB, p.Iterations, maxHashIterations, minHashMemoryKiB(p.Iterations), p.Iterations, maxHashMemoryKiB)
	}
	if a.DashboardIdleTimeout < 0 || time.Duration(a.DashboardIdleTimeout) > access.AdminSessionTTL {
		return fmt.Errorf("dashboard_idle_timeout must be between 0 (the default, 30m) and %v", access.AdminSessionTTL)
	}
	return nil
}

// Start opens the store (the SQLite database in data_dir, or a connection
// to MongoDB with its indexes) and begins serving.
func (a *App) Start() error {
	conn, err := openConnection(a.uri, a.dataDir)
	if err != nil {
		if a.uri == "" {
			return fmt.Errorf("app_access: data_dir (APP_ACCESS_DATA in the shipped Caddyfile): %w", err)
		}
		return fmt.Errorf("app_access: mongodb_uri: %w", err)
	}
	a.conn = conn
	var store access.Store
	if conn.embedded != nil {
		store = conn.embedded
		a.logger.Info("using the embedded store", zap.String("database", conn.embedded.Path()))
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := conn.client.Ping(ctx, nil); err != nil {
			return fmt.Errorf("app_access: mongodb_uri: cannot reach MongoDB: %w", err)
		}
		ms := mongostore.New(conn.client.Database(a.Database))
		if err := ms.EnsureIndexes(ctx); err != nil {
			return fmt.Errorf("app_access: preparing database %q: %w", a.Database, err)
		}
		store = ms
		a.logger.Info("using MongoDB", zap.String("database", a.Database))
	}
	keyCtx, cancelKey := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancelKey()
	fileKey, err := a.loadFileKey(keyCtx, store)
	if err != nil {
		var lost *lostFileKeyError
		if errors.As(err, &lost) {
			return err
		}
		if a.fileKey == "" {
			// The key comes from the data folder's key file: name it, not
			// a file_key the operator never set.
			return fmt.Errorf("app_access: the file key (file_key is not set, so the data folder's %s): %w", fileKeyName, err)
		}
		return fmt.Errorf("app_access: file_key: %w", err)
	}
	tailer := a.newFeedTailer(store)
	outbox, dispatcher := a.newWebhooks(store, fileKey)
	tailer.Follow(outbox)
	svc := access.NewService(timedStore{store}, access.Config{
		Staleness:          time.Duration(a.Staleness),
		CredentialCacheTTL: time.Duration(a.CredentialCacheTTL),
		AdminIdleTimeout:   time.Duration(a.DashboardIdleTimeout),
		CacheEntries:       a.CacheEntries,
		Listeners:          []access.EventListener{tailer.Record, a.auditListener(store), outbox.Listen},
		Argon2:             a.argon2(),
		HashConcurrency:    a.HashConcurrency,
		HashQueue:          a.HashQueue,
		Throttle:           a.Throttle.policy(),
		FileKey:            fileKey,
		Observer:           newMetricsObserver(),
		Origin:             tailer.Origin(),
		Subscribed:         outbox.Subscribed,
	})
	a.live.Store(&running{svc: svc, api: clientapi.NewHandler(svc, clientIP, a.logger)})
	a.stop = make(chan struct{})
	a.stopped.Add(4)
	go a.cleanExpiredSessions(svc)
	// The feed tailer, the webhook dispatcher (whose attempts in flight
	// are cut short and retried later, by any instance) and the journal
	// sweeper run until Stop.
	go a.runUntilStop(func(ctx context.Context) { tailer.Run(ctx, svc) })
	go a.runUntilStop(dispatcher.Run)
	sweeper := a.newJournalSweeper()
	go a.runUntilStop(func(ctx context.Context) { sweeper.Run(ctx, svc) })
	return nil
}

// Stop ends the background work (the session cleanup, the change feed,
// the webhook dispatcher, whose attempts in flight are cut short and
// retried later, and the journal sweeper) and deletes the journal records
// of the events told so far; requests in flight keep the service. Caddy stops the
// old config's app on a reload, so nothing of it keeps running.
func (a *App) Stop() error {
	if a.stop != nil {
		close(a.stop)
		a.stopped.Wait()
		a.stop = nil
	}
	// The journal records of the events told so far go now, not in the
	// next batch, so that a clean stop leaves none to recover.
	if r := a.live.Load(); r != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := r.svc.ClearJournal(ctx); err != nil {
			a.logger.Warn("clearing the event journal; the records are recovered later", zap.Error(err))
		}
	}
	return nil
}

// Cleanup releases this config's hold on the shared connection; the last
// config to let go closes it.
func (a *App) Cleanup() error {
	if a.conn == nil {
		return nil
	}
	a.conn = nil
	_, err := connections.Delete(connectionKey(a.uri, a.dataDir))
	return err
}

func (a *App) cleanExpiredSessions(svc *access.Service) {
	defer a.stopped.Done()
	every := time.Duration(a.SessionCleanupInterval)
	if every <= 0 {
		every = 10 * time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
			a.deleteExpiredSessions(svc)
		}
	}
}

// deleteExpiredSessions runs one cleanup; a panic is logged, not fatal, so
// the loop goes on.
func (a *App) deleteExpiredSessions(svc *access.Service) {
	defer func() {
		if v := recover(); v != nil {
			a.logger.Error("deleting expired sessions panicked", zap.Any("panic", v), zap.Stack("stack"))
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Expired sessions are kept a day so clients are told session_expired
	// rather than invalid.
	n, err := svc.DeleteExpiredSessions(ctx, 24*time.Hour)
	if err != nil {
		a.logger.Warn("deleting expired sessions", zap.Error(err))
	} else if n > 0 {
		a.logger.Debug("deleted expired sessions", zap.Int64("count", n))
	}
	if _, err := svc.DeleteExpiredFailures(ctx); err != nil {
		a.logger.Warn("deleting expired failed attempts", zap.Error(err))
	}
	if n, err := svc.DeleteExpiredAudit(ctx, time.Duration(a.AuditRetention)); err != nil {
		a.logger.Warn("deleting expired audit log entries", zap.Error(err))
	} else if n > 0 {
		a.logger.Debug("deleted expired audit log entries", zap.Int64("count", n))
	}
	if n, err := svc.DeleteExpiredDeliveries(ctx, a.Webhooks.retention()); err != nil {
		a.logger.Warn("deleting expired webhook deliveries", zap.Error(err))
	} else if n > 0 {
		a.logger.Debug("deleted expired webhook deliveries", zap.Int64("count", n))
	}
}

// auditListener writes the audit log to store; a failed write is logged
// (the entry names ids only, and the error no credential).
func (a *App) auditListener(store access.AuditStore) access.EventListener {
	return access.NewAuditListener(store, func(err error) {
		a.logger.Error("writing the audit log", zap.Error(err))
	})
}

// errNotStarted answers requests that arrive before the app has started.
var errNotStarted = access.Refusal(access.CodeUnavailable, "App Access is starting; try again shortly.")

// serving returns what the started app serves with.
func (a *App) serving() (*running, error) {
	if r := a.live.Load(); r != nil {
		return r, nil
	}
	return nil, errNotStarted
}

// fileKeyName is the key file in data_dir, used when file_key is not set.
const fileKeyName = "file.key"

// loadFileKey returns file_key, else the data folder's key file. It makes
// a new key file only for a store that holds no data (a fresh store): in
// any other the secrets are sealed with the lost key, which a new one
// cannot open, so a missing key file stops the start instead
// (lostFileKeyError).
func (a *App) loadFileKey(ctx context.Context, store access.Store) ([]byte, error) {
	if a.fileKey != "" {
		return decodeFileKey(a.fileKey)
	}
	path := filepath.Join(a.dataDir, fileKeyName)
	if b, err := os.ReadFile(path); err == nil {
		key, err := decodeFileKey(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return key, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if h, ok := store.(access.DataHolder); ok {
		holds, err := h.HoldsData(ctx)
		if err != nil {
			return nil, err
		}
		if holds {
			return nil, &lostFileKeyError{path: path, mongo: a.uri != ""}
		}
	}
	if err := os.MkdirAll(a.dataDir, 0o700); err != nil {
		return nil, err
	}
	key := make([]byte, access.FileKeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) { // another instance wrote it first
		return a.loadFileKey(ctx, store)
	}
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return key, err
}

// lostFileKeyError stops the start of a store that holds data when no
// file_key is set and the data folder has no key file.
type lostFileKeyError struct {
	path  string
	mongo bool
}

func (e *lostFileKeyError) Error() string {
	store := "the database next to it"
	if e.mongo {
		store = "the MongoDB database"
	}
	return "app_access: the file key " + e.path + " is missing but " + store + " holds data sealed with it: " +
		"restore that file from a backup (or set file_key to the key); no new key is made, as it could not open " +
		"the encrypted files, signing keys, webhook secrets and TOTP secrets"
}

func decodeFileKey(s string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(key) != access.FileKeySize {
		return nil, errors.New("must be the base64 encoding of 32 bytes")
	}
	return key, nil
}

// clientIP is the client address as Caddy resolved it, honouring the
// server's trusted_proxies.
func clientIP(r *http.Request) string {
	if ip, ok := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string); ok && ip != "" {
		return ip
	}
	return r.RemoteAddr
}

// appFrom returns the app_access app of a config, loading it if needed.
func appFrom(ctx caddy.Context) (*App, error) {
	v, err := ctx.App("app_access")
	if err != nil {
		return nil, fmt.Errorf("loading app_access app: %w", err)
	}
	return v.(*App), nil
}

// Interface guards.
var (
	_ caddy.App          = (*App)(nil)
	_ caddy.Provisioner  = (*App)(nil)
	_ caddy.Validator    = (*App)(nil)
	_ caddy.CleanerUpper = (*App)(nil)
)

// runUntilStop runs loop with a context that ends at Stop, and marks it
// stopped when it returns.
func (a *App) runUntilStop(loop func(ctx context.Context)) {
	defer a.stopped.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-a.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	loop(ctx)
}

// The bounds of hash_memory_kib and hash_iterations that a stored hash
// may carry.
const (
	maxHashMemoryKiB  = 4 << 20
	maxHashIterations = 64
)

// minHashMemoryKiB is OWASP's least argon2id memory at t passes (its
// password storage cheat sheet's pairings).
func minHashMemoryKiB(t uint32) uint32 {
	switch t {
	case 1:
		return 46 * 1024
	case 2:
		return 19 * 1024
	case 3:
		return 12 * 1024
	case 4:
		return 9 * 1024
	}
	return 7 * 1024
}

// argon2 is the password hashing cost configured, the OWASP minimum where
// a setting is left out.
func (a *App) argon2() access.Argon2Params {
	p := access.OWASPArgon2
	if a.HashMemoryKiB != 0 {
		p.MemoryKiB = a.HashMemoryKiB
	}
	if a.HashIterations != 0 {
		p.Iterations = a.HashIterations
	}
	return p
}
