package access

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Config tunes a Service. Zero values take the documented defaults.
type Config struct {
	// Staleness bounds how long this instance may act on data that another
	// instance has changed (bans, memberships, sessions, application
	// settings) when no change feed vouches for its caches (see
	// FeedTailer). Default 5s. Changes made through this instance apply at
	// once.
	Staleness time.Duration
	// CredentialCacheTTL is how long a verified username and password are
	// remembered, so legacy header auth does not run argon2id on every
	// request. Default 1m; negative switches the cache off. Entries are
	// dropped when the user changes (here, or through the change feed).
	CredentialCacheTTL time.Duration
	// CacheEntries bounds each cache (sessions, user states, applications,
	// devices, credentials). Default 125000: 100,000 active users with a
	// quarter to spare, since a working set larger than the bound evicts
	// what it reads next (about 60 MiB of heap for 100,000 users:
	// TestCaches_OneHundredThousandUsersFitTheMemoryBudget).
	// While a change feed is followed (FeedTailer), entries stay until the
	// feed evicts them or this bound displaces them.
	CacheEntries int
	// Argon2 sets the password hashing cost. Default OWASPArgon2.
	Argon2 Argon2Params
	// HashConcurrency bounds concurrent password hashes. Default GOMAXPROCS.
	HashConcurrency int
	// HashQueue bounds the password checks waiting for one of those
	// slots; more are refused at once with 503. Default
	// DefaultHashQueuePerSlot × HashConcurrency.
	HashQueue int
	// FileKey encrypts files marked encrypted (AES-256-GCM); nil disables
	// encrypted uploads. Keys derived from it seal the applications'
	// signing keys and the administrators' TOTP secrets (all zeros without
	// it: for tests only).
	FileKey []byte
	// CodeKey is the key license codes are hashed under (HMAC-SHA256).
	// Every instance on one store must share it, and a code hashed under
	// another key is not found. Default: derived from FileKey; all zeros
	// without either (as weak as a bare hash, for tests).
	CodeKey []byte
	// AdminIdleTimeout ends a dashboard session after this long without a
	// request (recorded to the minute); AdminSessionTTL (12 h) bounds it
	// whatever its activity. Default DefaultAdminIdleTimeout (30m); at
	// most AdminSessionTTL.
	AdminIdleTimeout time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Listeners are told of every event (see EventListener).
	Listeners []EventListener
	// Throttle sets the throttling thresholds; zero fields take
	// DefaultThrottlePolicy's. Applications may override them.
	Throttle ThrottlePolicy
	// Observer, when set, is told of hash waits and times and of cache
	// lookups (metrics).
	Observer Observer
	// Origin names this instance in the event journal (the change feed's
	// origin, say). Default: a random name.
	Origin string
	// Subscribed, when set, reports whether a webhook endpoint subscribes
	// to an event (WebhookOutbox.Subscribed): an event that only the
	// webhook outbox persists (a login, a license sign-up) is journaled
	// only then. Unset, every webhook event is journaled.
	Subscribed func(ctx context.Context, e Event) (bool, error)
}

// DefaultCacheEntries is the default bound of each cache.
const DefaultCacheEntries = 125_000

// Service carries out App Access's use cases over a Store.
type Service struct {
	store     Store
	hasher    *PasswordHasher
	now       func() time.Time
	staleness time.Duration
	adminIdle time.Duration // Config.AdminIdleTimeout

	apps     *expiringCache[string, *App]           // by API key
	users    *expiringCache[string, *userState]     // by user ID
	sessions *expiringCache[secretDigest, *Session] // by the token's digest
	creds    *expiringCache[string, credential]     // by credentialKey
	uses     *expiringCache[string, *LicenseUse]    // by license ID; a use never changes
	devices  *expiringCache[string, string]         // user ID, by user ID + hardware ID
	content  *expiringCache[string, *AppContent]    // by app ID
	// signingKeys are the applications' key rings, by app ID.
	signingKeys *expiringCache[string, *keyRing]
	// trust is how long the change feed vouches for cached entries.
	trust *cacheTrust

	credKey   []byte
	fileKey   []byte
	codeKey   []byte
	signKey   []byte // seals signing-key seeds
	totpKey   []byte // seals administrators' TOTP secrets
	listeners []EventListener
	throttle  *throttler
	observer  Observer // nil without metrics
	origin    string   // this instance, in the journal
	clearer   *journalClearer
	// subscribed is Config.Subscribed.
	subscribed func(ctx context.Context, e Event) (bool, error)
}

// NewService returns a Service over store.
func NewService(store Store, cfg Config) *Service {
	if cfg.Staleness == 0 {
		cfg.Staleness = 5 * time.Second
	}
	if cfg.CredentialCacheTTL == 0 {
		cfg.CredentialCacheTTL = time.Minute
	}
	if cfg.CacheEntries <= 0 {
		cfg.CacheEntries = DefaultCacheEntries
	}
	if cfg.Argon2 == (Argon2Params{}) {
		cfg.Argon2 = OWASPArgon2
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.AdminIdleTimeout <= 0 {
		cfg.AdminIdleTimeout = DefaultAdminIdleTimeout
	}
	cfg.AdminIdleTimeout = min(cfg.AdminIdleTimeout, AdminSessionTTL)
	if cfg.Origin == "" {
		cfg.Origin = uuid.NewString()
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	n, now, st := cfg.CacheEntries, cfg.Now, cfg.Staleness
	trust := new(cacheTrust)
	byUser := func(x *Session) string { return x.UserID }
	s := &Service{
		store:       store,
		hasher:      NewPasswordHasher(cfg.Argon2, cfg.HashConcurrency, cfg.HashQueue),
		now:         now,
		staleness:   st,
		adminIdle:   cfg.AdminIdleTimeout,
		apps:        newExpiringCache[string, *App](st, n, now).trusting(trust),
		users:       newExpiringCache[string, *userState](st, n, now).trusting(trust),
		sessions:    newExpiringCache[secretDigest, *Session](st, n, now).trusting(trust).ownedBy(byUser),
		creds:       newExpiringCache[string, credential](cfg.CredentialCacheTTL, n, now).ownedBy(credential.owner),
		uses:        newExpiringCache[string, *LicenseUse](time.Hour, n, now),
		devices:     newExpiringCache[string, string](st, n, now).trusting(trust).ownedBy(func(userID string) string { return userID }),
		content:     newExpiringCache[string, *AppContent](st, 4096, now).trusting(trust),
		signingKeys: newExpiringCache[string, *keyRing](st, 4096, now).trusting(trust),
		trust:       trust,
		credKey:     key,
		fileKey:     cfg.FileKey,
		codeKey:     codeKeyOf(cfg),
		signKey:     signingKeyKey(cfg.FileKey),
		totpKey:     totpKeyOf(cfg.FileKey),
		listeners:   cfg.Listeners,
		throttle:    newThrottler(cfg.Throttle, store, n, now),
		origin:      cfg.Origin,
		clearer:     &journalClearer{store: store},
		subscribed:  cfg.Subscribed,
	}
	s.observeWith(cfg.Observer)
	s.throttle.held = func(ctx context.Context, e Event) { s.emit(ctx, e) }
	return s
}

// Now is the service's clock, at the millisecond precision the store keeps.
func (s *Service) Now() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// userState is what authorisation needs to know about a user.
type userState struct {
	user       *User
	ban        *Ban
	membership Membership
}

// state returns the user's current state, from cache when fresh; appID is
// the application the caller expects it in (the cached user shares its
// string). ErrNotFound means there is no such user (or it was deleted).
func (s *Service) state(ctx context.Context, appID, userID string) (*userState, error) {
	if st, ok := s.users.get(userID); ok {
		return st, nil
	}
	stamp := s.users.stamp()
	u, ban, ledger, err := s.store.UserState(ctx, userID)
	if err != nil {
		return nil, wrapStore(err, "reading user")
	}
	share(&u.ID, userID)
	share(&u.AppID, appID)
	st := &userState{user: u, ban: ban, membership: MembershipOf(ledger)}
	s.users.setStamped(userID, st, stamp)
	return st, nil
}

// share makes *field the same string as s when they are equal, so that an
// entry of a cache does not hold another copy of a string the cache (or
// another cache) holds already: 100,000 cached users hold one application
// ID.
func share(field *string, s string) {
	if *field == s {
		*field = s
	}
}

// forgetUser drops everything cached about a user on this instance.
func (s *Service) forgetUser(userID string) {
	s.users.remove(userID)
	s.creds.removeOwner(userID)
	s.sessions.removeOwner(userID)
	s.devices.removeOwner(userID)
}

// wrapStore adds context to a storage error, keeping ErrNotFound and
// ErrDuplicate recognisable.
func wrapStore(err error, what string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// licenseID is LicenseID under the service's code key.
func (s *Service) licenseID(appID, code string) string { return LicenseID(s.codeKey, appID, code) }

// codeKeyOf is the configured code key, or one derived from the file key.
func codeKeyOf(cfg Config) []byte {
	if cfg.CodeKey != nil {
		return cfg.CodeKey
	}
	return deriveKey(cfg.FileKey, "app-access license codes v1")
}
