package mongostore

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

// The webhook collections. An attempt's _id is "<delivery id>/<number, 6
// digits>", so inserting it is the claim and a delivery's attempts are an
// _id range in order.
const (
	collWebhooks   = "webhooks"
	collDeliveries = "webhook_deliveries"
	collAttempts   = "webhook_attempts"
)

type webhookDoc struct {
	ID           string   `bson:"_id"`
	AppID        string   `bson:"app_id"`
	URL          string   `bson:"url"`
	Events       []string `bson:"events"`
	SealedSecret []byte   `bson:"sealed_secret"`
	// The previous secret of a rotation's overlap and its end; absent (or
	// null) without one.
	PreviousSealedSecret []byte     `bson:"previous_sealed_secret,omitempty"`
	PreviousSecretUntil  *time.Time `bson:"previous_secret_until,omitempty"`
	Enabled              bool       `bson:"enabled"`
	CreatedAt            time.Time  `bson:"created_at"`
}

func webhookDocOf(w *access.Webhook) webhookDoc {
	return webhookDoc{ID: w.ID, AppID: w.AppID, URL: w.URL, Events: eventNames(w.Events), SealedSecret: w.SealedSecret,
		PreviousSealedSecret: w.PreviousSealedSecret, PreviousSecretUntil: timeOrNil(w.PreviousSecretUntil),
		Enabled: w.Enabled, CreatedAt: w.CreatedAt}
}

func eventNames(ks []access.EventKind) []string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = string(k)
	}
	return names
}

// timeOrNil is &t, or nil for the zero time.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func (d *webhookDoc) webhook() *access.Webhook {
	w := &access.Webhook{ID: d.ID, AppID: d.AppID, URL: d.URL, SealedSecret: d.SealedSecret, PreviousSealedSecret: d.PreviousSealedSecret,
		Enabled: d.Enabled, CreatedAt: d.CreatedAt.UTC()}
	if d.PreviousSecretUntil != nil {
		w.PreviousSecretUntil = d.PreviousSecretUntil.UTC()
	}
	for _, k := range d.Events {
		w.Events = append(w.Events, access.EventKind(k))
	}
	return w
}

// InsertWebhook implements access.WebhookStore.
func (s *Store) InsertWebhook(ctx context.Context, w *access.Webhook) error {
	return s.insert(ctx, collWebhooks, webhookDocOf(w))
}

// ReplaceWebhook implements access.WebhookStore: the settings' only
// writers are administrators; the secrets are left to
// RotateWebhookSecret.
func (s *Store) ReplaceWebhook(ctx context.Context, w *access.Webhook) error {
	return s.setExisting(ctx, collWebhooks, bsonEq("_id", w.ID), bson.D{
		{Key: "url", Value: w.URL}, {Key: "events", Value: eventNames(w.Events)}, {Key: "enabled", Value: w.Enabled}})
}

// RotateWebhookSecret implements access.WebhookStore: one update of the
// endpoint's document, on the condition that its secret is still was. On
// MongoDB the condition and the write are atomic; on a server whose updates
// are not (FerretDB), two rotations of one endpoint at the same instant
// may both succeed, the later write winning (the writers are
// administrators; the secret they replaced signs during either overlap).
func (s *Store) RotateWebhookSecret(ctx context.Context, w *access.Webhook, was []byte) error {
	return s.setExisting(ctx, collWebhooks, bson.D{{Key: "_id", Value: w.ID}, {Key: "sealed_secret", Value: was}}, bson.D{
		{Key: "sealed_secret", Value: w.SealedSecret}, {Key: "previous_sealed_secret", Value: w.PreviousSealedSecret},
		{Key: "previous_secret_until", Value: timeOrNil(w.PreviousSecretUntil)}})
}

// DeleteWebhook implements access.WebhookStore.
func (s *Store) DeleteWebhook(ctx context.Context, webhookID string) error {
	return s.deleteExisting(ctx, collWebhooks, bsonEq("_id", webhookID))
}

// WebhookByID implements access.WebhookStore.
func (s *Store) WebhookByID(ctx context.Context, webhookID string) (*access.Webhook, error) {
	var d webhookDoc
	if err := s.byID(ctx, collWebhooks, webhookID, &d); err != nil {
		return nil, err
	}
	return d.webhook(), nil
}

// Webhooks implements access.WebhookStore, on {app_id, created_at}.
func (s *Store) Webhooks(ctx context.Context, appID string) ([]access.Webhook, error) {
	var docs []webhookDoc
	opts := options.Find().SetSort(bson.D{{Key: "created_at", Value: 1}, {Key: "_id", Value: 1}})
	if err := findAll(ctx, s.c(collWebhooks), bsonEq("app_id", appID), opts, &docs); err != nil {
		return nil, err
	}
	out := make([]access.Webhook, len(docs))
	for i := range docs {
		out[i] = *docs[i].webhook()
	}
	return out, nil
}

type deliveryDoc struct {
	ID            string    `bson:"_id"`
	WebhookID     string    `bson:"webhook_id"`
	AppID         string    `bson:"app_id"`
	Event         string    `bson:"event"`
	Payload       []byte    `bson:"payload"`
	CreatedAt     time.Time `bson:"created_at"`
	Status        string    `bson:"status"`
	Attempts      int       `bson:"attempts"`
	NextAttemptAt time.Time `bson:"next_attempt_at"`
	RetryFrom     time.Time `bson:"retry_from"`
	LastStatus    int       `bson:"last_status"`
	LastError     string    `bson:"last_error"`
}

func (d *deliveryDoc) delivery() access.WebhookDelivery {
	return access.WebhookDelivery{ID: d.ID, WebhookID: d.WebhookID, AppID: d.AppID, Event: access.EventKind(d.Event), Payload: d.Payload,
		CreatedAt: d.CreatedAt.UTC(), Status: access.DeliveryStatus(d.Status), Attempts: d.Attempts, NextAttemptAt: d.NextAttemptAt.UTC(),
		RetryFrom: d.RetryFrom.UTC(), LastStatus: d.LastStatus, LastError: d.LastError}
}

// InsertDeliveries implements access.WebhookStore: one unordered
// insertMany of documents with unique _ids, each its own fact.
func (s *Store) InsertDeliveries(ctx context.Context, ds []access.WebhookDelivery) error {
	docs := make([]any, len(ds))
	for i := range ds {
		d := &ds[i]
		docs[i] = deliveryDoc{ID: d.ID, WebhookID: d.WebhookID, AppID: d.AppID, Event: string(d.Event),
			Payload: d.Payload, CreatedAt: d.CreatedAt, Status: string(d.Status), Attempts: d.Attempts, NextAttemptAt: d.NextAttemptAt,
			RetryFrom: d.RetryFrom, LastStatus: d.LastStatus, LastError: d.LastError}
	}
	_, err := s.c(collDeliveries).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	return mapErr(err)
}

// DeliveryByID implements access.WebhookStore.
func (s *Store) DeliveryByID(ctx context.Context, deliveryID string) (*access.WebhookDelivery, error) {
	var d deliveryDoc
	if err := s.byID(ctx, collDeliveries, deliveryID, &d); err != nil {
		return nil, err
	}
	out := d.delivery()
	return &out, nil
}

// Deliveries implements access.WebhookStore, on {webhook_id, _id}.
func (s *Store) Deliveries(ctx context.Context, webhookID, before string, limit int) ([]access.WebhookDelivery, error) {
	filter := bsonEq("webhook_id", webhookID)
	if before != "" {
		filter = append(filter, bson.E{Key: "_id", Value: bson.D{{Key: "$lt", Value: before}}})
	}
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: -1}}).SetLimit(int64(limit)).
		SetHint(bson.D{{Key: "webhook_id", Value: 1}, {Key: "_id", Value: 1}})
	return s.findDeliveries(ctx, filter, opts)
}

// DueDeliveries implements access.WebhookStore, on {status,
// next_attempt_at}. While an import is under way (or one did not finish)
// it finds none: an import writes pending deliveries before their
// attempts and applications, and a dispatcher must neither send nor claim
// attempts of records that a failed import then removes. The marker is
// read after the deliveries, so a poll that overlapped the start of an
// import drops what it found; a poll that found none reads nothing more.
func (s *Store) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]access.WebhookDelivery, error) {
	filter := bson.D{{Key: "status", Value: string(access.DeliveryPending)}, {Key: "next_attempt_at", Value: bson.D{{Key: "$lte", Value: now}}}}
	opts := options.Find().SetSort(bson.D{{Key: "next_attempt_at", Value: 1}}).SetLimit(int64(limit))
	ds, err := s.findDeliveries(ctx, filter, opts)
	if err != nil || len(ds) == 0 {
		return ds, err
	}
	if importing, err := s.importing(ctx); err != nil || importing {
		return nil, err
	}
	return ds, nil
}

func (s *Store) findDeliveries(ctx context.Context, filter bson.D, opts *options.FindOptionsBuilder) ([]access.WebhookDelivery, error) {
	var docs []deliveryDoc
	if err := findAll(ctx, s.c(collDeliveries), filter, opts, &docs); err != nil {
		return nil, err
	}
	out := make([]access.WebhookDelivery, len(docs))
	for i := range docs {
		out[i] = docs[i].delivery()
	}
	return out, nil
}

// UpdateDelivery implements access.WebhookStore: a $set conditioned on the
// attempts claimed. The claim (a unique insert of the attempt) already
// makes its holder the only writer; the condition keeps a late writer that
// read an older state from moving the delivery back.
func (s *Store) UpdateDelivery(ctx context.Context, d *access.WebhookDelivery, attempts int) error {
	return s.setExisting(ctx, collDeliveries, bson.D{{Key: "_id", Value: d.ID}, {Key: "attempts", Value: attempts}},
		bson.D{{Key: "status", Value: string(d.Status)}, {Key: "attempts", Value: d.Attempts},
			{Key: "next_attempt_at", Value: d.NextAttemptAt}, {Key: "retry_from", Value: d.RetryFrom},
			{Key: "last_status", Value: d.LastStatus}, {Key: "last_error", Value: d.LastError}})
}

type attemptDoc struct {
	ID            string    `bson:"_id"`
	DeliveryID    string    `bson:"delivery_id"`
	Number        int       `bson:"number"`
	ClaimedAt     time.Time `bson:"claimed_at"`
	Finished      bool      `bson:"finished"`
	StatusCode    int       `bson:"status_code"`
	Error         string    `bson:"error"`
	DurationMS    int64     `bson:"duration_ms"`
	Outcome       string    `bson:"outcome"`
	NextAttemptAt time.Time `bson:"next_attempt_at"`
}

func attemptDocID(deliveryID string, n int) string { return fmt.Sprintf("%s/%06d", deliveryID, n) }

func (d *attemptDoc) attempt() access.DeliveryAttempt {
	a := access.DeliveryAttempt{DeliveryID: d.DeliveryID, Number: d.Number, ClaimedAt: d.ClaimedAt.UTC(), Finished: d.Finished,
		StatusCode: d.StatusCode, Error: d.Error, Duration: time.Duration(d.DurationMS) * time.Millisecond, Outcome: access.DeliveryStatus(d.Outcome)}
	if !d.NextAttemptAt.IsZero() {
		a.NextAttemptAt = d.NextAttemptAt.UTC()
	}
	return a
}

// InsertDeliveryAttempt implements access.WebhookStore: the claim is one
// insert on a unique _id.
func (s *Store) InsertDeliveryAttempt(ctx context.Context, a *access.DeliveryAttempt) error {
	return s.insert(ctx, collAttempts, attemptDoc{ID: attemptDocID(a.DeliveryID, a.Number), DeliveryID: a.DeliveryID, Number: a.Number,
		ClaimedAt: a.ClaimedAt, Finished: a.Finished, StatusCode: a.StatusCode, Error: a.Error, DurationMS: a.Duration.Milliseconds(),
		Outcome: string(a.Outcome), NextAttemptAt: a.NextAttemptAt})
}

// FinishDeliveryAttempt implements access.WebhookStore: the claimant is
// the attempt's only writer.
func (s *Store) FinishDeliveryAttempt(ctx context.Context, a *access.DeliveryAttempt) error {
	return s.setExisting(ctx, collAttempts, bsonEq("_id", attemptDocID(a.DeliveryID, a.Number)),
		bson.D{{Key: "finished", Value: true}, {Key: "status_code", Value: a.StatusCode},
			{Key: "error", Value: a.Error}, {Key: "duration_ms", Value: a.Duration.Milliseconds()},
			{Key: "outcome", Value: string(a.Outcome)}, {Key: "next_attempt_at", Value: a.NextAttemptAt}})
}

// DeliveryAttempt implements access.WebhookStore.
func (s *Store) DeliveryAttempt(ctx context.Context, deliveryID string, number int) (*access.DeliveryAttempt, error) {
	var d attemptDoc
	if err := s.byID(ctx, collAttempts, attemptDocID(deliveryID, number), &d); err != nil {
		return nil, err
	}
	a := d.attempt()
	return &a, nil
}

// DeliveryAttempts implements access.WebhookStore: an _id range.
func (s *Store) DeliveryAttempts(ctx context.Context, deliveryID string) ([]access.DeliveryAttempt, error) {
	var docs []attemptDoc
	filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: deliveryID + "/"}, {Key: "$lt", Value: deliveryID + "/~"}}}}
	if err := findAll(ctx, s.c(collAttempts), filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}), &docs); err != nil {
		return nil, err
	}
	out := make([]access.DeliveryAttempt, len(docs))
	for i := range docs {
		out[i] = docs[i].attempt()
	}
	return out, nil
}

// DeleteDeliveriesBefore implements access.WebhookStore, on
// {created_at}: the attempts first, so none is left without its delivery.
func (s *Store) DeleteDeliveriesBefore(ctx context.Context, t time.Time) (int64, error) {
	var total int64
	for {
		var docs []struct {
			ID string `bson:"_id"`
		}
		opts := options.Find().SetSort(bson.D{{Key: "created_at", Value: 1}}).SetLimit(1000).SetProjection(bsonEq("_id", 1))
		if err := findAll(ctx, s.c(collDeliveries), bson.D{{Key: "created_at", Value: bson.D{{Key: "$lt", Value: t}}}}, opts, &docs); err != nil {
			return total, err
		}
		if len(docs) == 0 {
			return total, nil
		}
		ids := make(bson.A, len(docs))
		for i, d := range docs {
			ids[i] = d.ID
		}
		if err := s.deleteWhere(ctx, collAttempts, bson.D{{Key: "delivery_id", Value: bson.D{{Key: "$in", Value: ids}}}}); err != nil {
			return total, err
		}
		res, err := s.c(collDeliveries).DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
		if err != nil {
			return total, mapErr(err)
		}
		total += res.DeletedCount
	}
}

var _ access.WebhookStore = (*Store)(nil)
