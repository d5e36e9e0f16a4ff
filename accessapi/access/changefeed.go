package access

import (
	"context"
	"time"
)

// Change is one entry of the change feed: an event that can alter an answer
// an instance caches, named by the keys it invalidates. Like an Event it
// holds identifiers only, never a secret.
type Change struct {
	// Seq is the entry's place in the feed: 1, 2, 3, … with no gaps, in
	// the order entries became visible. The store assigns it.
	Seq int64
	At  time.Time
	// Origin names the instance that wrote the entry, which applied the
	// change to its own caches already.
	Origin      string
	Kind        EventKind
	AppID       string
	APIKey      string
	UserID      string
	SessionHash string
}

// ChangeFeed is the store's append-only log of changes, which every
// instance tails to evict what other instances changed.
//
// Sequence numbers are claimed by unique-key inserts and a store claims
// n+1 only once n exists, so a reader that has seen n never finds an entry
// at n or below appear later: there is no late commit to wait for, and
// no horizon is needed (see docs/design.md).
type ChangeFeed interface {
	// AppendChange stores c as the newest entry and sets c.Seq.
	AppendChange(ctx context.Context, c *Change) error
	// ChangesAfter returns up to limit entries after seq, in order and
	// without a gap: none when seq+1 is missing (pruned, or not written
	// yet). When there is none it costs one indexed lookup (of seq+1).
	ChangesAfter(ctx context.Context, seq int64, limit int) ([]Change, error)
	// LastChange returns the newest entry's sequence number, 0 for an
	// empty feed.
	LastChange(ctx context.Context) (int64, error)
	// DeleteChangesBefore prunes the entries older than t, always keeping
	// the newest, so that sequence numbers keep growing.
	DeleteChangesBefore(ctx context.Context, t time.Time) (int64, error)
}

// UserStateStore reads what authorisation needs to know about a user in
// one request to the store.
type UserStateStore interface {
	// UserState returns the user, their ban (nil when not banned) and
	// their ledger in append order; ErrNotFound means there is no user.
	UserState(ctx context.Context, userID string) (*User, *Ban, []Activation, error)
}

// feedKinds are the events that can alter a cached answer, and so are
// written to the change feed.
var feedKinds = map[EventKind]bool{
	EventLicenseActivated:  true,
	EventMembershipGranted: true,
	EventLoggedOut:         true,
	EventSessionsEnded:     true,
	EventUserBanned:        true,
	EventUserUnbanned:      true,
	EventDevicesReset:      true,
	EventUserDeleted:       true,
	EventPasswordChanged:   true,
	EventAppChanged:        true,
	EventSecretRotated:     true,
	EventAppDeleted:        true,
	EventContentChanged:    true,
	EventSigningKeyRotated: true,
	EventSigningKeyRetired: true,
	// An application's webhook endpoints, which the webhook outbox of
	// every instance caches (a CacheFollower of the feed).
	EventWebhookCreated: true,
	EventWebhookChanged: true,
	EventWebhookDeleted: true,
}

// InvalidatesCaches reports whether events of kind k can alter a cached
// answer, which is what the change feed records.
func (k EventKind) InvalidatesCaches() bool { return feedKinds[k] }

// invalidatesCaches reports whether e can alter an answer some instance
// caches.
func (e Event) invalidatesCaches() bool { return e.Kind.InvalidatesCaches() && !e.NewUser }

// changeOf is the feed entry of e, written by origin.
func changeOf(e Event, origin string) Change {
	return Change{At: e.At, Origin: origin, Kind: e.Kind, AppID: e.AppID, APIKey: e.APIKey, UserID: e.UserID, SessionHash: e.SessionHash}
}

// Event is the event c records, for Service.Invalidate.
func (c Change) Event() Event {
	return Event{Kind: c.Kind, At: c.At, AppID: c.AppID, APIKey: c.APIKey, UserID: c.UserID, SessionHash: c.SessionHash}
}
