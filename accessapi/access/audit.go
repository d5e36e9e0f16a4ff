package access

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// The audit log: an append-only record, per application, of every
// management action and every security event, written by an EventListener
// (NewAuditListener) so that no use case calls it. An entry names who acted
// (the Principal in the use case's context), what (the action) and the
// target, with before and after where a change has them; like the events
// it is made from, it never holds a secret, password, code or token.

// AuditEntry is one entry of the audit log.
type AuditEntry struct {
	// ID is a UUIDv7 of At: unique, and ordered by time, so a time range is
	// an ID range and the ID is the cursor of a listing.
	ID        string
	At        time.Time
	AppID     string
	Principal Principal
	// Action is the event kind (EventKind) or, for content changes, the
	// change ("variable.set", "variable.deleted", "file.uploaded",
	// "file.deleted").
	Action string
	// UserID is the user the entry is about, if any.
	UserID string
	// Target names what the action changed: a user, license, file or
	// application ID, a variable name, a hashed account key.
	Target string
	// Before and After are JSON objects of what the change replaced and
	// what it stored (application settings, a ban's reason, a grant...);
	// nil when not relevant.
	Before, After json.RawMessage
}

// AuditFilter selects entries of an application's audit log; zero fields
// select everything.
type AuditFilter struct {
	Action string
	UserID string
	// Since (inclusive) and Until (exclusive) bound the entries' times,
	// at millisecond precision; the stores turn them into an ID range
	// (AuditIDAt).
	Since, Until time.Time
}

// AuditStore keeps the audit log. Entries are only appended and, past the
// retention, deleted oldest first.
type AuditStore interface {
	// AppendAudit adds an entry; ErrDuplicate means its ID is taken.
	AppendAudit(ctx context.Context, e *AuditEntry) error
	// AuditLog lists an application's entries that match f, in ID order,
	// after the cursor (an entry ID; "" for the first page), on an index
	// per filter: (app, ID), (app, action, ID), (app, user, ID).
	AuditLog(ctx context.Context, appID string, f AuditFilter, after string, limit int) ([]AuditEntry, error)
	// DeleteAuditBefore deletes the entries of every application older
	// than t and returns how many there were.
	DeleteAuditBefore(ctx context.Context, t time.Time) (int64, error)
}

// DefaultAuditRetention is how long audit entries are kept unless
// configured otherwise.
const DefaultAuditRetention = 365 * 24 * time.Hour

// AuditIDAt is the least audit entry ID of millisecond t: every entry at
// or after t has an ID at least this, every earlier one a smaller ID.
func AuditIDAt(t time.Time) string {
	var b [16]byte
	putMillis(&b, t)
	return uuid.UUID(b).String()
}

// NewAuditID returns a UUIDv7 of t: t's Unix milliseconds, then random
// bits.
func NewAuditID(t time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[6:])
	return uuidV7(&b, t)
}

// EventRecordID is the ID of the record a listener writes for e about
// what (an endpoint's ID for a webhook delivery, "audit" for the audit
// entry): a UUIDv7 of e.At whose other bits are derived from e.ID and
// what, so that a replay of the event writes the same ID and finds it
// taken. An event that was not journaled (no ID) gets a random one.
func EventRecordID(e Event, what string) string {
	if e.ID == "" {
		return NewAuditID(e.At)
	}
	sum := sha256.Sum256([]byte(e.identity() + "\x00" + what))
	b := [16]byte(sum[:16])
	return uuidV7(&b, e.At)
}

// uuidV7 stamps b with t's Unix milliseconds, the version and the variant.
func uuidV7(b *[16]byte, t time.Time) string {
	putMillis(b, t)
	b[6] = 0x70 | b[6]&0x0f // version 7
	b[8] = 0x80 | b[8]&0x3f // RFC 9562 variant
	return uuid.UUID(*b).String()
}

func putMillis(b *[16]byte, t time.Time) {
	ms := max(t.UnixMilli(), 0)
	var m [8]byte
	binary.BigEndian.PutUint64(m[:], uint64(ms))
	copy(b[:6], m[2:])
}

// auditedKinds are the events the audit log records: management actions
// and security events. Sign-ups, activations, logins and logouts are client
// traffic, counted by metrics, not audited.
var auditedKinds = map[EventKind]bool{
	EventMembershipGranted: true, EventSessionsEnded: true, EventUserBanned: true, EventUserUnbanned: true,
	EventDevicesReset: true, EventUserDeleted: true, EventPasswordChanged: true,
	EventAppCreated: true, EventAppChanged: true, EventSecretRotated: true, EventAppDeleted: true,
	EventContentChanged: true, EventLicensesCreated: true, EventLicenseDeleted: true,
	EventLoginThrottled: true, EventSellerKeyCreated: true, EventSellerKeyRevoked: true,
	EventWebhookCreated: true, EventWebhookChanged: true, EventWebhookDeleted: true, EventWebhookRedelivered: true, EventWebhookRotated: true,
	EventSigningKeyRotated: true, EventSigningKeyRetired: true,
}

// NewAuditListener returns the listener that writes the audit log to
// store. The entry is written even if the use case's context is cancelled
// meanwhile; onError is told of a failed write (the change itself is
// stored already).
func NewAuditListener(store AuditStore, onError func(error)) EventListener {
	return func(ctx context.Context, e Event) error {
		entry, ok := auditEntryOf(ctx, e)
		if !ok {
			return nil
		}
		// A taken ID is this event's entry, written before a replay.
		err := store.AppendAudit(context.WithoutCancel(ctx), entry)
		if err == nil || errors.Is(err, ErrDuplicate) {
			return nil
		}
		err = fmt.Errorf("appending %s to the audit log of application %s: %w", entry.Action, entry.AppID, err)
		if onError != nil {
			onError(err)
		}
		return err
	}
}

// auditEntryOf is the audit entry of an event, if the audit log records it.
func auditEntryOf(ctx context.Context, e Event) (*AuditEntry, bool) {
	appID, ok := auditLogOf(e)
	if !ok {
		return nil, false
	}
	entry := &AuditEntry{ID: EventRecordID(e, "audit"), At: e.At, AppID: appID, Principal: PrincipalOf(ctx),
		Action: string(e.Kind), UserID: e.UserID, Target: e.Target}
	if e.Kind == EventContentChanged && e.Change != "" {
		entry.Action = e.Change
	}
	if entry.Target == "" {
		switch {
		case e.UserID != "":
			entry.Target = e.UserID
		case e.LicenseID != "":
			entry.Target = e.LicenseID
		default:
			entry.Target = appID
		}
	}
	after := e.After
	if e.Recovered {
		// Written by the journal's recovery (see Event.Recovered).
		after = maps.Clone(after)
		if after == nil {
			after = map[string]any{}
		}
		after["recovered"] = true
		if e.Unconfirmed {
			after["confirmed"] = false
		}
	}
	entry.Before, entry.After = auditJSON(e.Before), auditJSON(after)
	return entry, true
}

// auditJSON encodes an event's before or after; nil stays nil.
func auditJSON(m map[string]any) json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil // only plain values are put in these maps
	}
	return b
}

// appSettingsOf is what the audit log shows of an application's settings:
// never its secret's hash.
func appSettingsOf(app *App) map[string]any {
	return map[string]any{
		"name": app.Name, "device_auth": app.DeviceAuth, "anonymous_access": app.AnonymousAccess,
		"max_devices": app.MaxDevices, "min_password_length": app.MinPasswordLength,
		"session_ttl": app.SessionTTL.String(), "token_requires_hardware_id": app.TokenRequiresHardwareID,
		"max_sessions": app.MaxSessions, "throttle": throttleOf(app.Throttle),
		"offline_token_ttl": offlineTokenTTL(app).String(),
	}
}

// throttleOf is an application's throttling overrides as the management
// API writes them: the fields set, durations such as "1s".
func throttleOf(p ThrottlePolicy) map[string]any {
	m := map[string]any{}
	for k, v := range map[string]int{"account_address_free": p.AccountAddressFree, "address_free": p.AddressFree,
		"account_free": p.AccountFree, "code_free": p.CodeFree, "secret_free": p.SecretFree, "sign_ups_per_address": p.SignUpsPerAddress} {
		if v != 0 {
			m[k] = v
		}
	}
	for k, v := range map[string]time.Duration{"first_delay": p.FirstDelay, "max_delay": p.MaxDelay, "window": p.Window} {
		if v != 0 {
			m[k] = v.String()
		}
	}
	return m
}

// settingsChange is the settings a change replaced and those it stored,
// only the ones that differ.
func settingsChange(before, after *App) (map[string]any, map[string]any) {
	b, a := appSettingsOf(before), appSettingsOf(after)
	for k := range a {
		if fmt.Sprint(a[k]) == fmt.Sprint(b[k]) {
			delete(a, k)
			delete(b, k)
		}
	}
	return b, a
}

// AuditLog lists an application's audit log (also of a deleted
// application), or the server's (ServerAuditLog), in time order after the
// cursor of a previous page.
func (s *Service) AuditLog(ctx context.Context, appID string, f AuditFilter, after string, limit int) (Page[AuditEntry], error) {
	var fields []FieldError
	if after != "" {
		if _, err := uuid.Parse(after); err != nil {
			fields = append(fields, FieldError{"after", "is not a cursor of this listing"})
		}
	}
	if len(f.Action) > 64 || !utf8.ValidString(f.Action) {
		fields = append(fields, FieldError{"action", "must be at most 64 bytes of UTF-8"})
	}
	if f.UserID != "" {
		if _, err := uuid.Parse(f.UserID); err != nil {
			fields = append(fields, FieldError{"user", "must be a user ID"})
		}
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since) {
		fields = append(fields, FieldError{"until", "must be after since"})
	}
	if len(fields) > 0 {
		return Page[AuditEntry]{}, Invalid(fields...)
	}
	limit = clampPage(limit)
	entries, err := s.store.AuditLog(ctx, appID, f, after, limit)
	if err != nil {
		return Page[AuditEntry]{}, wrapStore(err, "listing the audit log")
	}
	page := Page[AuditEntry]{Items: entries}
	if len(entries) == limit {
		page.Next = entries[len(entries)-1].ID
	}
	return page, nil
}

// DeleteExpiredAudit removes the audit entries older than retention.
func (s *Service) DeleteExpiredAudit(ctx context.Context, retention time.Duration) (int64, error) {
	if retention <= 0 {
		retention = DefaultAuditRetention
	}
	n, err := s.store.DeleteAuditBefore(ctx, s.Now().Add(-retention))
	return n, wrapStore(err, "deleting expired audit entries")
}

// The changes of EventContentChanged (Event.Change), which the audit log
// records as its actions.
const (
	ContentVariableSet     = "variable.set"
	ContentVariableDeleted = "variable.deleted"
	ContentFileUploaded    = "file.uploaded"
	ContentFileDeleted     = "file.deleted"
)

// grantOf is what the audit log shows of an administrator's grant.
func grantOf(a *Activation) map[string]any {
	m := map[string]any{"activation_id": a.ID, "grants_lifetime_access": a.GrantsLifetimeAccess,
		"revokes_lifetime_access": a.RevokesLifetimeAccess, "note": a.Note}
	if a.Minutes != nil {
		m["minutes"] = *a.Minutes
	}
	return m
}

// fileOf is what the audit log shows of a file: never its contents.
func fileOf(f *File) map[string]any {
	return map[string]any{"name": f.Name, "mime_type": f.MimeType, "size": f.Size, "sha256": f.SHA256, "encrypted": f.IsEncrypted}
}

// licensesOf is what the audit log shows of a batch of new licenses: how
// many, the first one's ID, the grant and note; never a code or its hint.
func licensesOf(batch []License, imported bool) map[string]any {
	l := batch[0]
	m := map[string]any{"count": len(batch), "first_license_id": l.ID, "imported": imported,
		"grants_lifetime_access": l.Grant.GrantsLifetimeAccess, "revokes_lifetime_access": l.Grant.RevokesLifetimeAccess, "note": l.Note}
	if l.Grant.Minutes != nil {
		m["minutes"] = *l.Grant.Minutes
	}
	return m
}
