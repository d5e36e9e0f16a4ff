package access

import "time"

// Observer is told what the service measures, for metrics: password hash
// waits and times, cache lookups and response signatures. The service knows no metrics library;
// the Caddy module implements this with Prometheus. Its methods are called
// on the request's goroutine: they must be quick and safe for concurrent
// use.
type Observer interface {
	// HashWaited reports how long a password hash waited for a slot.
	HashWaited(wait time.Duration)
	// Hashed reports how long one argon2id hash took.
	Hashed(took time.Duration)
	// CacheLookup reports a lookup in one of the service's caches.
	CacheLookup(cache CacheName, hit bool)
	// ResponsesSigned reports one Ed25519 signature that covers answers
	// signed answers (a batch, see batchsign.go).
	ResponsesSigned(answers int)
}

// CacheName names one of the service's caches.
type CacheName string

// The service's caches.
const (
	CacheApps        CacheName = "apps"
	CacheUsers       CacheName = "users"
	CacheSessions    CacheName = "sessions"
	CacheCredentials CacheName = "credentials"
	CacheLicenseUses CacheName = "license_uses"
	CacheDevices     CacheName = "devices"
	CacheContent     CacheName = "content"
)

// CacheNames lists every CacheName.
var CacheNames = []CacheName{CacheApps, CacheUsers, CacheSessions, CacheCredentials, CacheLicenseUses, CacheDevices, CacheContent}

// observeWith tells o what the service's hasher and caches measure.
func (s *Service) observeWith(o Observer) {
	if o == nil {
		return
	}
	s.observer = o
	s.hasher.observer = o
	s.apps.observe(CacheApps, o)
	s.users.observe(CacheUsers, o)
	s.sessions.observe(CacheSessions, o)
	s.creds.observe(CacheCredentials, o)
	s.uses.observe(CacheLicenseUses, o)
	s.devices.observe(CacheDevices, o)
	s.content.observe(CacheContent, o)
}

// observe makes the cache report its lookups to o under name.
func (c *expiringCache[K, V]) observe(name CacheName, o Observer) {
	c.name, c.observer = name, o
}

// reportLookup tells the observer, if any, of a lookup.
func (c *expiringCache[K, V]) reportLookup(hit bool) {
	if c.observer != nil {
		c.observer.CacheLookup(c.name, hit)
	}
}
