package access

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// WebhookOutboxConfig tunes a WebhookOutbox. Zero values take the
// documented defaults.
type WebhookOutboxConfig struct {
	// CacheTTL is how long an application's endpoints are remembered. A
	// change through this instance applies at once; one through another
	// instance when the change feed brings it (the outbox follows the
	// feed: FeedTailer.Follow), and within CacheTTL when the feed cannot be
	// read. Default 5s.
	CacheTTL time.Duration
	// Timeout bounds the writes of one event's deliveries. Default 5s.
	Timeout time.Duration
	// OnError is told of a delivery that could not be written.
	OnError func(error)
	// OnQueued is told that deliveries were written (a local dispatcher
	// may start at once instead of at its next poll).
	OnQueued func()
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// WebhookOutbox is the EventListener that writes, for every event an
// enabled endpoint subscribes to, one delivery (the frozen payload, status
// pending, due at once) to the store: the outbox. Listeners run once the
// change is stored and before the use case answers, so once a client has
// its answer the event is durable; dispatchers (package webhook) send it.
type WebhookOutbox struct {
	store WebhookStore
	cfg   WebhookOutboxConfig
	cache *expiringCache[string, []Webhook] // by application ID
}

// NewWebhookOutbox returns the outbox over store.
func NewWebhookOutbox(store WebhookStore, cfg WebhookOutboxConfig) *WebhookOutbox {
	if cfg.CacheTTL <= 0 {
		cfg.CacheTTL = 5 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &WebhookOutbox{store: store, cfg: cfg, cache: newExpiringCache[string, []Webhook](cfg.CacheTTL, 10_000, cfg.Now)}
}

// Invalidate drops the endpoints of the application whose endpoints e
// changed (a CacheFollower of the change feed, and for this instance's own
// events).
func (o *WebhookOutbox) Invalidate(e Event) {
	if changesEndpoints(e.Kind) {
		o.cache.remove(e.AppID)
	}
}

// changesEndpoints reports whether events of kind k change an
// application's endpoints.
func changesEndpoints(k EventKind) bool {
	switch k {
	case EventWebhookCreated, EventWebhookChanged, EventWebhookDeleted, EventAppDeleted:
		return true
	}
	return false
}

// Flush drops every cached endpoint list.
func (o *WebhookOutbox) Flush() { o.cache.clear() }

// Listen is the EventListener.
func (o *WebhookOutbox) Listen(ctx context.Context, e Event) error {
	if changesEndpoints(e.Kind) {
		o.Invalidate(e)
		return nil
	}
	if e.AppID == "" || !slices.Contains(WebhookEvents, e.Kind) {
		return nil
	}
	hooks, err := o.endpoints(ctx, e.AppID)
	if err != nil {
		return o.fail(fmt.Errorf("reading the webhooks of application %s for %s: %w", e.AppID, e.Kind, err))
	}
	var ds []WebhookDelivery
	var payload []byte
	for i := range hooks {
		if !hooks[i].Subscribes(e.Kind) {
			continue
		}
		if payload == nil {
			payload = WebhookPayload(e)
		}
		ds = append(ds, WebhookDelivery{ID: EventRecordID(e, hooks[i].ID), WebhookID: hooks[i].ID, AppID: e.AppID, Event: e.Kind, Payload: payload,
			CreatedAt: e.At, Status: DeliveryPending, NextAttemptAt: e.At, RetryFrom: e.At})
	}
	if len(ds) == 0 {
		return nil
	}
	ctx, cancel := o.bounded(ctx)
	defer cancel()
	if err := o.insert(ctx, ds); err != nil {
		return o.fail(fmt.Errorf("writing the %d %s deliveries of application %s: %w", len(ds), e.Kind, e.AppID, err))
	}
	if o.cfg.OnQueued != nil {
		o.cfg.OnQueued()
	}
	return nil
}

// insert writes an event's deliveries. Their IDs derive from the event's,
// so a replay of the event finds them taken: then each is written alone,
// and one that is taken is already written.
func (o *WebhookOutbox) insert(ctx context.Context, ds []WebhookDelivery) error {
	err := o.store.InsertDeliveries(ctx, ds)
	if !errors.Is(err, ErrDuplicate) {
		return err
	}
	for i := range ds {
		if err := o.store.InsertDeliveries(ctx, ds[i:i+1]); err != nil && !errors.Is(err, ErrDuplicate) {
			return err
		}
	}
	return nil
}

// Subscribed reports whether an enabled endpoint of e's application
// subscribes to e's kind, from the cached endpoints when fresh: the
// service journals an event that only webhooks persist only then
// (Config.Subscribed).
func (o *WebhookOutbox) Subscribed(ctx context.Context, e Event) (bool, error) {
	hooks, err := o.endpoints(ctx, e.AppID)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(hooks, func(w Webhook) bool { return w.Subscribes(e.Kind) }), nil
}

// bounded is the context of one store call of the outbox: it outlives the
// use case's cancellation (the change is stored already) up to Timeout.
func (o *WebhookOutbox) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), o.cfg.Timeout)
}

// endpoints returns an application's endpoints, from cache when fresh (no
// store call and no allocation then: every login and sign-up asks).
func (o *WebhookOutbox) endpoints(ctx context.Context, appID string) ([]Webhook, error) {
	if ws, ok := o.cache.get(appID); ok {
		return ws, nil
	}
	stamp := o.cache.stamp()
	ctx, cancel := o.bounded(ctx)
	defer cancel()
	ws, err := o.store.Webhooks(ctx, appID)
	if err != nil {
		return nil, err
	}
	o.cache.setStamped(appID, ws, stamp)
	return ws, nil
}

func (o *WebhookOutbox) fail(err error) error {
	if o.cfg.OnError != nil {
		o.cfg.OnError(err)
	}
	return err
}

// webhookPayload is the JSON body of a delivery.
type webhookPayload struct {
	Type      EventKind   `json:"type"`
	Timestamp string      `json:"timestamp"`
	Data      webhookData `json:"data"`
}

// webhookData names what the event is about: identifiers, never a secret,
// password, code, token or token hash.
type webhookData struct {
	AppID     string `json:"app_id"`
	UserID    string `json:"user_id,omitempty"`
	Username  string `json:"username,omitempty"`
	LicenseID string `json:"license_id,omitempty"`
	Count     int    `json:"count,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// WebhookPayload is the body every endpoint is sent for e:
// {"type": kind, "timestamp": RFC 3339, "data": {app_id, user_id, …}}.
func WebhookPayload(e Event) []byte {
	p := webhookPayload{Type: e.Kind, Timestamp: e.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Data: webhookData{AppID: e.AppID, UserID: e.UserID, Username: e.Username, LicenseID: e.LicenseID, Count: e.Count}}
	if e.Kind == EventUserBanned {
		p.Data.Reason, _ = e.After["reason"].(string)
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("encoding a webhook payload: %v", err)) // plain strings and numbers only
	}
	return b
}

// WebhookRetryWindow is how long a delivery's attempts go on after its
// round began (the event, or a redelivery) unless configured otherwise.
const WebhookRetryWindow = 24 * time.Hour

// WebhookBackoff schedules the attempts of a delivery.
type WebhookBackoff struct {
	// Base is the least wait between attempts. Default 5s.
	Base time.Duration
	// Max is the longest wait. Default 4h.
	Max time.Duration
	// Window is how long after its round began a delivery is retried
	// before it fails. Default WebhookRetryWindow.
	Window time.Duration
}

func (b WebhookBackoff) withDefaults() WebhookBackoff {
	if b.Base <= 0 {
		b.Base = 5 * time.Second
	}
	if b.Max <= 0 {
		b.Max = 4 * time.Hour
	}
	if b.Window <= 0 {
		b.Window = WebhookRetryWindow
	}
	return b
}

// Next returns when the attempt after a failed one at now should be made,
// for a round that began at from; ok is false when the round's window is
// over, so the delivery fails. The wait is as long as the round has lasted
// (so the waits double: Base, Base, 2 Base, 4 Base, …), at least Base and
// at most Max, with ±20% jitter so that endpoints that failed together are
// not retried together.
func (b WebhookBackoff) Next(from, now time.Time) (time.Time, bool) {
	b = b.withDefaults()
	wait := min(max(now.Sub(from), b.Base), b.Max)
	wait = time.Duration(float64(wait) * (0.8 + 0.4*rand.Float64()))
	next := now.Add(wait)
	if next.Sub(from) > b.Window {
		return time.Time{}, false
	}
	return next, true
}
