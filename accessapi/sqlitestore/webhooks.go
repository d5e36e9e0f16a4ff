package sqlitestore

import (
	"context"
	"strings"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

const webhookColumns = `id, app_id, url, events, sealed_secret, previous_sealed_secret, previous_secret_until, enabled, created_at`

// insertWebhook adds an endpoint; webhookArgs are its arguments. The
// import shares both.
const insertWebhook = `INSERT INTO webhooks (` + webhookColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

func webhookArgs(w *access.Webhook) []any {
	return []any{w.ID, w.AppID, w.URL, joinEvents(w.Events), w.SealedSecret, w.PreviousSealedSecret, msOrZero(w.PreviousSecretUntil),
		boolInt(w.Enabled), ms(w.CreatedAt)}
}

// InsertWebhook implements access.WebhookStore.
func (s *Store) InsertWebhook(ctx context.Context, w *access.Webhook) error {
	_, err := s.exec(ctx, insertWebhook, webhookArgs(w)...)
	return err
}

// ReplaceWebhook implements access.WebhookStore: the settings only.
func (s *Store) ReplaceWebhook(ctx context.Context, w *access.Webhook) error {
	return mustAffect(s.exec(ctx, `UPDATE webhooks SET url = ?, events = ?, enabled = ? WHERE id = ?`,
		w.URL, joinEvents(w.Events), boolInt(w.Enabled), w.ID))
}

// RotateWebhookSecret implements access.WebhookStore: one conditional
// update of the secrets.
func (s *Store) RotateWebhookSecret(ctx context.Context, w *access.Webhook, was []byte) error {
	return mustAffect(s.exec(ctx, `UPDATE webhooks SET sealed_secret = ?, previous_sealed_secret = ?, previous_secret_until = ?
		WHERE id = ? AND sealed_secret = ?`,
		w.SealedSecret, w.PreviousSealedSecret, msOrZero(w.PreviousSecretUntil), w.ID, was))
}

// DeleteWebhook implements access.WebhookStore.
func (s *Store) DeleteWebhook(ctx context.Context, webhookID string) error {
	return mustAffect(s.exec(ctx, `DELETE FROM webhooks WHERE id = ?`, webhookID))
}

// WebhookByID implements access.WebhookStore.
func (s *Store) WebhookByID(ctx context.Context, webhookID string) (*access.Webhook, error) {
	return scanWebhook(s.queryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ?`, webhookID))
}

// Webhooks implements access.WebhookStore.
func (s *Store) Webhooks(ctx context.Context, appID string) ([]access.Webhook, error) {
	rows, err := s.query(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE app_id = ? ORDER BY created_at, id`, appID)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.Webhook
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *w)
	}
	return out, mapErr(rows.Err())
}

func scanWebhook(r interface{ Scan(...any) error }) (*access.Webhook, error) {
	var w access.Webhook
	var events string
	var enabled int
	var created, previousUntil int64
	if err := r.Scan(&w.ID, &w.AppID, &w.URL, &events, &w.SealedSecret, &w.PreviousSealedSecret, &previousUntil, &enabled, &created); err != nil {
		return nil, mapErr(err)
	}
	for _, e := range strings.Fields(events) {
		w.Events = append(w.Events, access.EventKind(e))
	}
	if previousUntil != 0 {
		w.PreviousSecretUntil = fromMS(previousUntil)
	}
	w.Enabled, w.CreatedAt = enabled != 0, fromMS(created)
	return &w, nil
}

func joinEvents(ks []access.EventKind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, " ")
}

const deliveryColumns = `id, webhook_id, app_id, event, payload, created_at, status, attempts, next_attempt_at, retry_from, last_status, last_error`

// insertDelivery adds a delivery; deliveryArgs are its arguments. The
// import shares both.
const insertDelivery = `INSERT INTO webhook_deliveries (` + deliveryColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func deliveryArgs(d *access.WebhookDelivery) []any {
	return []any{d.ID, d.WebhookID, d.AppID, string(d.Event), d.Payload, ms(d.CreatedAt), string(d.Status), d.Attempts,
		ms(d.NextAttemptAt), ms(d.RetryFrom), d.LastStatus, d.LastError}
}

// InsertDeliveries implements access.WebhookStore: one transaction.
func (s *Store) InsertDeliveries(ctx context.Context, ds []access.WebhookDelivery) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		for i := range ds {
			if _, err := tx.ExecContext(ctx, insertDelivery, deliveryArgs(&ds[i])...); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeliveryByID implements access.WebhookStore.
func (s *Store) DeliveryByID(ctx context.Context, deliveryID string) (*access.WebhookDelivery, error) {
	return scanDelivery(s.queryRow(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE id = ?`, deliveryID))
}

// Deliveries implements access.WebhookStore, on (webhook_id, id).
func (s *Store) Deliveries(ctx context.Context, webhookID, before string, limit int) ([]access.WebhookDelivery, error) {
	if before == "" {
		before = "~" // after every ID
	}
	return s.deliveries(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE webhook_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
		webhookID, before, limit)
}

// DueDeliveries implements access.WebhookStore, on the partial index of
// the pending deliveries' next attempt.
func (s *Store) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]access.WebhookDelivery, error) {
	return s.deliveries(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries INDEXED BY webhook_deliveries_due
		WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?`, ms(now), limit)
}

func (s *Store) deliveries(ctx context.Context, q string, args ...any) ([]access.WebhookDelivery, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.WebhookDelivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *d)
	}
	return out, mapErr(rows.Err())
}

func scanDelivery(r interface{ Scan(...any) error }) (*access.WebhookDelivery, error) {
	var d access.WebhookDelivery
	var event, status string
	var created, next, from int64
	if err := r.Scan(&d.ID, &d.WebhookID, &d.AppID, &event, &d.Payload, &created, &status, &d.Attempts, &next, &from,
		&d.LastStatus, &d.LastError); err != nil {
		return nil, mapErr(err)
	}
	d.Event, d.Status = access.EventKind(event), access.DeliveryStatus(status)
	d.CreatedAt, d.NextAttemptAt, d.RetryFrom = fromMS(created), fromMS(next), fromMS(from)
	return &d, nil
}

// UpdateDelivery implements access.WebhookStore.
func (s *Store) UpdateDelivery(ctx context.Context, d *access.WebhookDelivery, attempts int) error {
	return mustAffect(s.exec(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, retry_from = ?,
		last_status = ?, last_error = ? WHERE id = ? AND attempts = ?`,
		string(d.Status), d.Attempts, ms(d.NextAttemptAt), ms(d.RetryFrom), d.LastStatus, d.LastError, d.ID, attempts))
}

const attemptColumns = `delivery_id, number, claimed_at, finished, status_code, error, duration_ms, outcome, next_attempt_at`

// insertAttempt adds an attempt; attemptArgs are its arguments. The
// import shares both.
const insertAttempt = `INSERT INTO webhook_attempts (` + attemptColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

func attemptArgs(a *access.DeliveryAttempt) []any {
	return []any{a.DeliveryID, a.Number, ms(a.ClaimedAt), boolInt(a.Finished), a.StatusCode, a.Error, a.Duration.Milliseconds(),
		string(a.Outcome), msOrZero(a.NextAttemptAt)}
}

// InsertDeliveryAttempt implements access.WebhookStore.
func (s *Store) InsertDeliveryAttempt(ctx context.Context, a *access.DeliveryAttempt) error {
	_, err := s.exec(ctx, insertAttempt, attemptArgs(a)...)
	return err
}

// FinishDeliveryAttempt implements access.WebhookStore.
func (s *Store) FinishDeliveryAttempt(ctx context.Context, a *access.DeliveryAttempt) error {
	return mustAffect(s.exec(ctx, `UPDATE webhook_attempts SET finished = 1, status_code = ?, error = ?, duration_ms = ?, outcome = ?,
		next_attempt_at = ? WHERE delivery_id = ? AND number = ?`,
		a.StatusCode, a.Error, a.Duration.Milliseconds(), string(a.Outcome), msOrZero(a.NextAttemptAt), a.DeliveryID, a.Number))
}

// DeliveryAttempt implements access.WebhookStore.
func (s *Store) DeliveryAttempt(ctx context.Context, deliveryID string, number int) (*access.DeliveryAttempt, error) {
	return scanAttempt(s.queryRow(ctx, `SELECT `+attemptColumns+` FROM webhook_attempts WHERE delivery_id = ? AND number = ?`, deliveryID, number))
}

// DeliveryAttempts implements access.WebhookStore.
func (s *Store) DeliveryAttempts(ctx context.Context, deliveryID string) ([]access.DeliveryAttempt, error) {
	rows, err := s.query(ctx, `SELECT `+attemptColumns+` FROM webhook_attempts WHERE delivery_id = ? ORDER BY number`, deliveryID)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.DeliveryAttempt
	for rows.Next() {
		a, err := scanAttempt(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *a)
	}
	return out, mapErr(rows.Err())
}

func scanAttempt(r interface{ Scan(...any) error }) (*access.DeliveryAttempt, error) {
	var a access.DeliveryAttempt
	var claimed, durMS, next int64
	var finished int
	var outcome string
	if err := r.Scan(&a.DeliveryID, &a.Number, &claimed, &finished, &a.StatusCode, &a.Error, &durMS, &outcome, &next); err != nil {
		return nil, mapErr(err)
	}
	a.ClaimedAt, a.Finished, a.Duration, a.Outcome = fromMS(claimed), finished != 0, time.Duration(durMS)*time.Millisecond, access.DeliveryStatus(outcome)
	if next != 0 {
		a.NextAttemptAt = fromMS(next)
	}
	return &a, nil
}

// DeleteDeliveriesBefore implements access.WebhookStore, in short batches
// on the creation time's index.
func (s *Store) DeleteDeliveriesBefore(ctx context.Context, t time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
			const batch = `SELECT id FROM webhook_deliveries WHERE created_at < ? ORDER BY created_at LIMIT ?`
			if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_attempts WHERE delivery_id IN (`+batch+`)`, ms(t), expiredBatch); err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE id IN (`+batch+`)`, ms(t), expiredBatch)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		if n < expiredBatch {
			return total, nil
		}
	}
}

var _ access.WebhookStore = (*Store)(nil)
