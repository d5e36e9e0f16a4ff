package access

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Webhooks: an application's endpoints, each subscribed to some of the
// events in WebhookEvents, are told of them by signed HTTP requests (see
// the webhook package). The WebhookOutbox listener writes one delivery per
// event and endpoint before the use case answers; dispatchers send them.

// Webhook is an endpoint of an application.
type Webhook struct {
	ID     string
	AppID  string
	URL    string
	Events []EventKind
	// SealedSecret is the signing secret ("whsec_…") sealed under the
	// webhook key (SealWebhookSecret); the secret itself is shown once.
	SealedSecret []byte
	// PreviousSealedSecret is the secret the last rotation replaced,
	// sealed the same way: deliveries are signed with it too until
	// PreviousSecretUntil (see RotateWebhookSecret). Nil without an
	// overlap.
	PreviousSealedSecret []byte
	PreviousSecretUntil  time.Time
	Enabled              bool
	CreatedAt            time.Time
}

// Subscribes reports whether the endpoint wants events of kind k.
func (w *Webhook) Subscribes(k EventKind) bool { return w.Enabled && slices.Contains(w.Events, k) }

// PreviousSecretActive reports whether deliveries at now are signed with
// the previous secret too.
func (w *Webhook) PreviousSecretActive(now time.Time) bool {
	return w.PreviousSealedSecret != nil && now.Before(w.PreviousSecretUntil)
}

// WebhookEvents are the events an endpoint may subscribe to.
var WebhookEvents = []EventKind{EventUserSignedUp, EventLicenseActivated, EventLoggedIn, EventLoggedOut,
	EventUserBanned, EventUserUnbanned, EventUserDeleted, EventLicensesCreated, EventLicenseDeleted}

// The events of webhook management, which the audit log records.
const (
	EventWebhookCreated     EventKind = "webhook.created"
	EventWebhookChanged     EventKind = "webhook.changed"
	EventWebhookDeleted     EventKind = "webhook.deleted"
	EventWebhookRedelivered EventKind = "webhook.redelivery_requested"
	EventWebhookRotated     EventKind = "webhook.secret_rotated"
)

// MaxWebhooksPerApp bounds an application's endpoints: each event is
// written once per subscribed endpoint on the request's path.
const MaxWebhooksPerApp = 20

// maxWebhookURL bounds an endpoint's URL.
const maxWebhookURL = 2000

// DeliveryStatus is where a delivery stands.
type DeliveryStatus string

// The delivery statuses.
const (
	DeliveryPending   DeliveryStatus = "pending"   // an attempt is due at NextAttemptAt
	DeliveryDelivered DeliveryStatus = "delivered" // the endpoint answered 2xx
	DeliveryFailed    DeliveryStatus = "failed"    // retries ran out (or the endpoint is gone)
)

// WebhookDelivery is one event for one endpoint: the outbox record. Its
// payload is frozen when the event happens; the rest is its state, written
// only by the holder of its latest attempt (see DeliveryAttempt) or, once
// it is no longer pending, by a redelivery.
type WebhookDelivery struct {
	// ID is a UUIDv7 of CreatedAt; it is the webhook-id header, the same
	// on every attempt.
	ID        string
	WebhookID string
	AppID     string
	Event     EventKind
	Payload   []byte // the JSON body, as sent
	CreatedAt time.Time

	Status        DeliveryStatus
	Attempts      int       // attempts claimed so far
	NextAttemptAt time.Time // when Status is pending
	// RetryFrom is when the current round of attempts began (creation or
	// the last redelivery): retries stop WebhookRetryWindow after it.
	RetryFrom  time.Time
	LastStatus int    // the HTTP status of the last finished attempt; 0 for none
	LastError  string // why the last finished attempt failed, if it did
}

// DeliveryAttempt is one attempt at a delivery. Inserting it, unique by
// (delivery, number), is the claim: only its inserter sends, so several
// dispatchers on one store send each attempt once without any atomic
// update. The inserter then records the result on it.
type DeliveryAttempt struct {
	DeliveryID string
	Number     int // 1, 2, …
	ClaimedAt  time.Time
	// The result, set when the attempt finished.
	Finished   bool
	StatusCode int // 0 when no response came
	Error      string
	Duration   time.Duration
	// Outcome is the delivery's status after this attempt, and
	// NextAttemptAt the next attempt's time when that is pending: enough
	// for another dispatcher to finish the delivery's update if this one
	// stopped after recording the attempt.
	Outcome       DeliveryStatus
	NextAttemptAt time.Time
}

// WebhookStore keeps endpoints, their deliveries (the outbox) and the
// deliveries' attempts.
type WebhookStore interface {
	InsertWebhook(ctx context.Context, w *Webhook) error
	// ReplaceWebhook writes an endpoint's settings (URL, events, enabled
	// flag); its secrets are written only by RotateWebhookSecret.
	ReplaceWebhook(ctx context.Context, w *Webhook) error
	// RotateWebhookSecret writes w's secrets (current, previous and the
	// previous one's end) in one write, if the stored current secret is
	// still was; ErrNotFound when it is not (another rotation came first)
	// or the endpoint is gone.
	RotateWebhookSecret(ctx context.Context, w *Webhook, was []byte) error
	DeleteWebhook(ctx context.Context, webhookID string) error
	WebhookByID(ctx context.Context, webhookID string) (*Webhook, error)
	// Webhooks lists an application's endpoints, oldest first.
	Webhooks(ctx context.Context, appID string) ([]Webhook, error)

	// InsertDeliveries adds an event's deliveries in one store call;
	// ErrDuplicate means an ID is taken (the others may be written).
	InsertDeliveries(ctx context.Context, ds []WebhookDelivery) error
	DeliveryByID(ctx context.Context, deliveryID string) (*WebhookDelivery, error)
	// Deliveries lists an endpoint's deliveries newest first, before the
	// cursor (a delivery ID; "" for the first page).
	Deliveries(ctx context.Context, webhookID, before string, limit int) ([]WebhookDelivery, error)
	// DueDeliveries lists the pending deliveries whose next attempt is at
	// or before now, the most overdue first, on an index of the time;
	// none written by an import that has not ended (see Importer).
	DueDeliveries(ctx context.Context, now time.Time, limit int) ([]WebhookDelivery, error)
	// UpdateDelivery writes d's state (status, attempts, next attempt,
	// round, last result) if the stored delivery still has attempts
	// claimed; ErrNotFound when it has not (someone moved it on).
	UpdateDelivery(ctx context.Context, d *WebhookDelivery, attempts int) error
	// InsertDeliveryAttempt claims an attempt; ErrDuplicate means another
	// dispatcher holds it.
	InsertDeliveryAttempt(ctx context.Context, a *DeliveryAttempt) error
	// FinishDeliveryAttempt records an attempt's result; only its claimant
	// calls it.
	FinishDeliveryAttempt(ctx context.Context, a *DeliveryAttempt) error
	DeliveryAttempt(ctx context.Context, deliveryID string, number int) (*DeliveryAttempt, error)
	// DeliveryAttempts lists a delivery's attempts in order.
	DeliveryAttempts(ctx context.Context, deliveryID string) ([]DeliveryAttempt, error)
	// DeleteDeliveriesBefore deletes the deliveries created before t, with
	// their attempts, and returns how many deliveries there were.
	DeleteDeliveriesBefore(ctx context.Context, t time.Time) (int64, error)
}

// WebhookSettings are an endpoint's settings as a management request
// gives them; nil fields are left as they are.
type WebhookSettings struct {
	URL     *string
	Events  []EventKind
	Enabled *bool
}

func (st WebhookSettings) applyTo(w *Webhook) error {
	var fields []FieldError
	if st.URL != nil {
		if msg := checkWebhookURL(*st.URL); msg != "" {
			fields = append(fields, FieldError{"url", msg})
		}
		w.URL = *st.URL
	}
	if st.Events != nil {
		var clean []EventKind
		for _, k := range st.Events {
			if !slices.Contains(WebhookEvents, k) {
				fields = append(fields, FieldError{"events", "unknown event " + string(k)})
			} else if !slices.Contains(clean, k) {
				clean = append(clean, k)
			}
		}
		if len(st.Events) == 0 {
			fields = append(fields, FieldError{"events", "must name at least one event"})
		}
		w.Events = clean
	}
	if st.Enabled != nil {
		w.Enabled = *st.Enabled
	}
	if len(fields) > 0 {
		return Invalid(fields...)
	}
	return nil
}

// checkWebhookURL says what is wrong with an endpoint URL, or "".
// Destinations are checked again when sent (the address a name resolves
// to then is what counts).
func checkWebhookURL(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil || len(s) > maxWebhookURL:
		return "must be an http or https URL of at most 2000 characters"
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Hostname() == "":
		return "must be an absolute http or https URL"
	case u.User != nil:
		return "must not hold a user name or password"
	case u.Fragment != "":
		return "must not have a fragment"
	}
	return ""
}

// NewWebhook is a created endpoint with its secret, which is shown once.
type NewWebhook struct {
	Webhook
	Secret string
}

// CreateWebhook adds an endpoint to an application. URL and events are
// required; it is enabled unless st says otherwise.
func (s *Service) CreateWebhook(ctx context.Context, appID string, st WebhookSettings) (*NewWebhook, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	var missing []FieldError
	if st.URL == nil {
		missing = append(missing, FieldError{"url", "is required"})
	}
	if st.Events == nil {
		missing = append(missing, FieldError{"events", "is required"})
	}
	if len(missing) > 0 {
		return nil, Invalid(missing...)
	}
	w := Webhook{ID: uuid.NewString(), AppID: appID, Enabled: true, CreatedAt: s.Now()}
	if err := st.applyTo(&w); err != nil {
		return nil, err
	}
	existing, err := s.store.Webhooks(ctx, appID)
	if err != nil {
		return nil, wrapStore(err, "listing webhooks")
	}
	if len(existing) >= MaxWebhooksPerApp {
		return nil, Refusal(CodeConflict, "The application has the most webhook endpoints it may have (20).")
	}
	secret := NewWebhookSecret()
	if w.SealedSecret, err = SealWebhookSecret(WebhookKey(s.fileKey), w.ID, secret); err != nil {
		return nil, err
	}
	err = s.commit(ctx, func(ctx context.Context) error { return wrapStore(s.store.InsertWebhook(ctx, &w), "creating webhook") },
		Event{Kind: EventWebhookCreated, AppID: appID, Target: w.ID, After: webhookSettingsOf(&w)})
	if err != nil {
		return nil, err
	}
	return &NewWebhook{Webhook: w, Secret: secret}, nil
}

// Webhooks lists an application's endpoints.
func (s *Service) Webhooks(ctx context.Context, appID string) ([]Webhook, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	ws, err := s.store.Webhooks(ctx, appID)
	return ws, wrapStore(err, "listing webhooks")
}

// Webhook returns an application's endpoint.
func (s *Service) Webhook(ctx context.Context, appID, webhookID string) (*Webhook, error) {
	w, err := s.store.WebhookByID(ctx, webhookID)
	if errors.Is(err, ErrNotFound) || (err == nil && w.AppID != appID) {
		return nil, notFound("webhook")
	}
	return w, wrapStore(err, "reading webhook")
}

// UpdateWebhook changes an endpoint's URL, events or enabled flag.
func (s *Service) UpdateWebhook(ctx context.Context, appID, webhookID string, st WebhookSettings) (*Webhook, error) {
	w, err := s.Webhook(ctx, appID, webhookID)
	if err != nil {
		return nil, err
	}
	before := webhookSettingsOf(w)
	if err := st.applyTo(w); err != nil {
		return nil, err
	}
	err = s.commit(ctx, func(ctx context.Context) error { return wrapStore(s.store.ReplaceWebhook(ctx, w), "updating webhook") },
		Event{Kind: EventWebhookChanged, AppID: appID, Target: w.ID, Before: before, After: webhookSettingsOf(w)})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// DeleteWebhook removes an endpoint; its pending deliveries fail when
// their next attempt comes.
func (s *Service) DeleteWebhook(ctx context.Context, appID, webhookID string) error {
	w, err := s.Webhook(ctx, appID, webhookID)
	if err != nil {
		return err
	}
	return s.commit(ctx, func(ctx context.Context) error {
		if err := s.store.DeleteWebhook(ctx, webhookID); err != nil && !errors.Is(err, ErrNotFound) {
			return wrapStore(err, "deleting webhook")
		}
		return nil
	}, Event{Kind: EventWebhookDeleted, AppID: appID, Target: w.ID, Before: webhookSettingsOf(w)})
}

// Deliveries lists an endpoint's deliveries, newest first, before the
// cursor of a previous page.
func (s *Service) Deliveries(ctx context.Context, appID, webhookID, before string, limit int) (Page[WebhookDelivery], error) {
	if before != "" {
		if _, err := uuid.Parse(before); err != nil {
			return Page[WebhookDelivery]{}, Invalid(FieldError{"after", "is not a cursor of this listing"})
		}
	}
	if _, err := s.Webhook(ctx, appID, webhookID); err != nil {
		return Page[WebhookDelivery]{}, err
	}
	limit = clampPage(limit)
	ds, err := s.store.Deliveries(ctx, webhookID, before, limit)
	if err != nil {
		return Page[WebhookDelivery]{}, wrapStore(err, "listing deliveries")
	}
	page := Page[WebhookDelivery]{Items: ds}
	if len(ds) == limit {
		page.Next = ds[len(ds)-1].ID
	}
	return page, nil
}

// Delivery returns one of an endpoint's deliveries with its attempts.
func (s *Service) Delivery(ctx context.Context, appID, webhookID, deliveryID string) (*WebhookDelivery, []DeliveryAttempt, error) {
	d, err := s.delivery(ctx, appID, webhookID, deliveryID)
	if err != nil {
		return nil, nil, err
	}
	as, err := s.store.DeliveryAttempts(ctx, deliveryID)
	return d, as, wrapStore(err, "listing attempts")
}

func (s *Service) delivery(ctx context.Context, appID, webhookID, deliveryID string) (*WebhookDelivery, error) {
	if _, err := s.Webhook(ctx, appID, webhookID); err != nil {
		return nil, err
	}
	d, err := s.store.DeliveryByID(ctx, deliveryID)
	if errors.Is(err, ErrNotFound) || (err == nil && d.WebhookID != webhookID) {
		return nil, notFound("delivery")
	}
	return d, wrapStore(err, "reading delivery")
}

// Redeliver sends a delivered or failed delivery again, with the same
// webhook-id and payload, as a new round of attempts. A pending delivery
// is refused: its attempts go on.
func (s *Service) Redeliver(ctx context.Context, appID, webhookID, deliveryID string) (*WebhookDelivery, error) {
	d, err := s.delivery(ctx, appID, webhookID, deliveryID)
	if err != nil {
		return nil, err
	}
	if d.Status == DeliveryPending {
		return nil, Refusal(CodeConflict, "The delivery is pending: its next attempt is already scheduled.")
	}
	now := s.Now()
	d.Status, d.NextAttemptAt, d.RetryFrom = DeliveryPending, now, now
	err = s.commit(ctx, func(ctx context.Context) error {
		err := s.store.UpdateDelivery(ctx, d, d.Attempts)
		if errors.Is(err, ErrNotFound) {
			return Refusal(CodeConflict, "The delivery changed meanwhile; read it again.")
		}
		return wrapStore(err, "scheduling redelivery")
	}, Event{Kind: EventWebhookRedelivered, AppID: appID, Target: d.ID})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// DeleteExpiredDeliveries removes the deliveries created longer than
// retention ago, with their attempts.
func (s *Service) DeleteExpiredDeliveries(ctx context.Context, retention time.Duration) (int64, error) {
	if retention <= 0 {
		retention = DefaultDeliveryRetention
	}
	n, err := s.store.DeleteDeliveriesBefore(ctx, s.Now().Add(-retention))
	return n, wrapStore(err, "deleting expired deliveries")
}

// DefaultDeliveryRetention is how long deliveries are kept unless
// configured otherwise.
const DefaultDeliveryRetention = 30 * 24 * time.Hour

// webhookSettingsOf is what the audit log shows of an endpoint: never its
// secret, and of its URL only the origin and a fingerprint, since a URL
// can itself be a secret (a chat service's incoming-hook URL) and the log
// is read by seller keys with audit:read that cannot read endpoints.
func webhookSettingsOf(w *Webhook) map[string]any {
	events := make([]string, len(w.Events))
	for i, k := range w.Events {
		events[i] = string(k)
	}
	return map[string]any{"url": urlOrigin(w.URL), "url_sha256": urlFingerprint(w.URL), "events": strings.Join(events, " "), "enabled": w.Enabled}
}

// urlOrigin is a URL's scheme and host, with "/…" when it has more.
func urlOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "…"
	}
	origin := u.Scheme + "://" + u.Host
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		origin += "/…"
	}
	return origin
}

// urlFingerprint is the first 8 bytes of a URL's SHA-256 in hex: enough to
// tell a change of URL in the log, not to read it back.
func urlFingerprint(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:8])
}
