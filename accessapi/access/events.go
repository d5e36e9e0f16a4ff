package access

import (
	"context"
	"time"
)

// EventKind names what happened. The names are stable: an audit log,
// webhooks and metrics record them.
type EventKind string

// The event vocabulary.
const (
	EventUserSignedUp      EventKind = "user.signed_up"      // a password or license sign-up
	EventLicenseActivated  EventKind = "license.activated"   // a code was redeemed (sign-up or activation)
	EventMembershipGranted EventKind = "membership.granted"  // an administrator's grant
	EventLoggedIn          EventKind = "session.created"     // a login opened a session
	EventLoggedOut         EventKind = "session.ended"       // a client ended its session
	EventSessionsEnded     EventKind = "user.sessions_ended" // every session of a user ended
	EventUserBanned        EventKind = "user.banned"
	EventUserUnbanned      EventKind = "user.unbanned"
	EventDevicesReset      EventKind = "user.devices_reset" // also ends the user's sessions
	EventUserDeleted       EventKind = "user.deleted"
	EventPasswordChanged   EventKind = "user.password_changed" // by the user or an administrator; ends sessions
	EventAppCreated        EventKind = "app.created"
	EventAppChanged        EventKind = "app.changed" // settings
	EventSecretRotated     EventKind = "app.secret_rotated"
	EventAppDeleted        EventKind = "app.deleted"
	// EventSigningKeyRotated: an application has a new active signing key
	// (Target is its id).
	EventSigningKeyRotated EventKind = "app.signing_key_rotated"
	// EventSigningKeyRetired: one of an application's signing keys is no
	// longer published (Target is its id).
	EventSigningKeyRetired EventKind = "app.signing_key_retired"
	EventContentChanged    EventKind = "app.content_changed" // a variable or file
	EventLicensesCreated   EventKind = "licenses.created"
	EventLicenseDeleted    EventKind = "license.deleted"
	EventSellerKeyCreated  EventKind = "seller_key.created"
	EventSellerKeyRevoked  EventKind = "seller_key.revoked"
	// EventLoginThrottled: throttling began holding back an account or an
	// address after repeated failed logins (Change names the counter).
	EventLoginThrottled EventKind = "security.login_throttled"
)

// Event says what changed, once the change is stored. It names the keys
// the change affects and never a secret: no password, code, token or
// secret, only identifiers (a session is named by its token's hash).
type Event struct {
	// ID names the event across a replay (the journal record's ID and the
	// event's place in it), so that a listener that writes it derives its
	// record's ID from it and writes it once (see docs/design.md, "The
	// event journal"). Empty for an event that was not journaled.
	ID    string    `json:"-"`
	Kind  EventKind `json:"kind"`
	At    time.Time `json:"at"`
	AppID string    `json:"app_id,omitempty"`
	// APIKey is the application's key, for application events: caches
	// are keyed by it.
	APIKey string `json:"api_key,omitempty"`
	// UserID is the user the event is about, if any.
	UserID string `json:"user_id,omitempty"`
	// Username is that user's name, where the use case knows it (sign-ups,
	// logins, deletions), for webhooks.
	Username string `json:"username,omitempty"`
	// SessionHash names the one session a login opened or a logout ended.
	SessionHash string `json:"session_hash,omitempty"`
	// LicenseID is the license of a license event (the first one of a
	// batch of created licenses).
	LicenseID string `json:"license_id,omitempty"`
	// Count is how many licenses were created.
	Count int `json:"count,omitempty"`
	// NewUser says UserID was created by the change itself, so no
	// instance can have cached anything of that user: the event evicts
	// nothing and the change feed leaves it out.
	NewUser bool `json:"new_user,omitempty"`
	// Recovered says the event is told by the journal's recovery, after
	// the instance that caused it stopped before telling it; the audit
	// log records it.
	Recovered bool `json:"-"`
	// Unconfirmed says the recovery could not read in the store whether
	// the change was made (its kind has no check): the audit log records
	// an attempt whose outcome is not known.
	Unconfirmed bool `json:"-"`

	// The fields below describe a change for the audit log; they are
	// optional and, like the rest, never hold a secret.

	// Target names what the change is about when no field above does: a
	// variable's name, a file's ID, the hashed account key of a throttle
	// event.
	Target string `json:"target,omitempty"`
	// Change qualifies the kind: for EventContentChanged "variable.set",
	// "variable.deleted", "file.uploaded" or "file.deleted"; for
	// EventLoginThrottled the counter that holds back ("account_address",
	// "address", "account", "license_code").
	Change string `json:"change,omitempty"`
	// Before and After are what the change replaced and what it stored
	// (application settings without the secret's hash, a ban's reason, a
	// grant, a file's name, size and digest), as plain JSON values.
	Before map[string]any `json:"before,omitempty"`
	After  map[string]any `json:"after,omitempty"`
}

// identity names what happened, for the records listeners derive from an
// event: its ID, except for a license's activation, which happens once
// per license. That one may be told by two use cases: the journal's
// recovery of a redemption cut short, and a later request that finishes
// the same redemption (both with the use's time): named by its license,
// it is delivered and audited once.
func (e Event) identity() string {
	if e.Kind == EventLicenseActivated && e.LicenseID != "" {
		return string(EventLicenseActivated) + "/" + e.LicenseID
	}
	return e.ID
}

// EventListener is told of every event, in order, on the goroutine of the
// use case that caused it: it must be quick, and it handles (logs) its own
// failures. It returns an error when it could not write what it records
// of e (so the event's journal record stays, for recovery to tell again).
// The change feed, an audit log, webhooks and metrics listen.
type EventListener func(ctx context.Context, e Event) error

// emit stamps e, applies it to this instance's caches and then tells every
// listener; it reports whether one could not write what it records. Use
// cases call it once their change is stored.
func (s *Service) emit(ctx context.Context, e Event) (failed bool) {
	if e.At.IsZero() {
		e.At = s.Now()
	}
	s.Invalidate(e)
	for _, l := range s.listeners {
		if l(ctx, e) != nil {
			failed = true
		}
	}
	return failed
}

// Invalidate drops what this instance caches that e may have changed. The
// service applies its own events at once; a change feed applies the events
// of other instances with it.
func (s *Service) Invalidate(e Event) {
	switch e.Kind {
	case EventLicenseActivated, EventMembershipGranted, EventUserUnbanned:
		s.users.remove(e.UserID)
	case EventLoggedOut:
		if d, ok := digestOfHash(e.SessionHash); ok {
			s.sessions.remove(d)
		}
	case EventSessionsEnded, EventUserBanned, EventDevicesReset, EventUserDeleted, EventPasswordChanged:
		s.forgetUser(e.UserID)
		if e.Kind == EventUserDeleted {
			s.throttle.forgetSourcesOf(e.UserID)
		}
	case EventAppChanged, EventSecretRotated, EventAppDeleted:
		s.apps.remove(e.APIKey)
		s.content.remove(e.AppID)
		s.signingKeys.remove(e.AppID)
	case EventSigningKeyRotated, EventSigningKeyRetired:
		s.signingKeys.remove(e.AppID)
	case EventContentChanged:
		s.content.remove(e.AppID)
	}
}
