package conformance

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
)

func testWebhooks(t *testing.T, s access.Store) {
	ctx := context.Background()
	appID := uuid.NewString()
	w := access.Webhook{ID: uuid.NewString(), AppID: appID, URL: "https://example.com/hook",
		Events: []access.EventKind{access.EventUserSignedUp, access.EventUserBanned}, SealedSecret: []byte{1, 2, 3}, Enabled: true, CreatedAt: epoch}
	must(t, s.InsertWebhook(ctx, &w))
	wantErr(t, s.InsertWebhook(ctx, &w), access.ErrDuplicate, "inserting a webhook twice")
	second := access.Webhook{ID: uuid.NewString(), AppID: appID, URL: "http://example.net/", Events: []access.EventKind{access.EventLoggedIn},
		SealedSecret: []byte{4}, CreatedAt: epoch.Add(time.Second)}
	must(t, s.InsertWebhook(ctx, &second))
	other := second
	other.ID, other.AppID = uuid.NewString(), uuid.NewString()
	must(t, s.InsertWebhook(ctx, &other))

	got, err := s.Webhooks(ctx, appID)
	must(t, err)
	if len(got) != 2 || !reflect.DeepEqual(got[0], w) || !reflect.DeepEqual(got[1], second) {
		t.Fatalf("webhooks %+v, want %+v then %+v", got, w, second)
	}
	w.URL, w.Enabled, w.Events = "https://example.com/other", false, []access.EventKind{access.EventUserDeleted}
	must(t, s.ReplaceWebhook(ctx, &w))
	one, err := s.WebhookByID(ctx, w.ID)
	must(t, err)
	if !reflect.DeepEqual(*one, w) {
		t.Fatalf("replaced webhook %+v, want %+v", *one, w)
	}
	must(t, s.DeleteWebhook(ctx, w.ID))
	_, err = s.WebhookByID(ctx, w.ID)
	wantErr(t, err, access.ErrNotFound, "reading a deleted webhook")
	wantErr(t, s.DeleteWebhook(ctx, w.ID), access.ErrNotFound, "deleting a deleted webhook")
	wantErr(t, s.ReplaceWebhook(ctx, &w), access.ErrNotFound, "replacing a deleted webhook")
}

func newDelivery(webhookID string, at time.Time) access.WebhookDelivery {
	return access.WebhookDelivery{ID: access.NewAuditID(at), WebhookID: webhookID, AppID: "app", Event: access.EventUserSignedUp,
		Payload: []byte(`{"type":"user.signed_up"}`), CreatedAt: at, Status: access.DeliveryPending, NextAttemptAt: at, RetryFrom: at}
}

// insertDelivery inserts one delivery.
func insertDelivery(ctx context.Context, s access.Store, d *access.WebhookDelivery) error {
	return s.InsertDeliveries(ctx, []access.WebhookDelivery{*d})
}

func testDeliveryBatch(t *testing.T, s access.Store) {
	ctx := context.Background()
	batch := []access.WebhookDelivery{newDelivery(uuid.NewString(), epoch), newDelivery(uuid.NewString(), epoch), newDelivery(uuid.NewString(), epoch)}
	must(t, s.InsertDeliveries(ctx, batch))
	for _, d := range batch {
		got, err := s.DeliveryByID(ctx, d.ID)
		must(t, err)
		if !reflect.DeepEqual(*got, d) {
			t.Fatalf("delivery %+v, want %+v", *got, d)
		}
	}
	again := []access.WebhookDelivery{newDelivery(uuid.NewString(), epoch), batch[1]}
	wantErr(t, s.InsertDeliveries(ctx, again), access.ErrDuplicate, "a batch with a taken ID")
}

func testDeliveries(t *testing.T, s access.Store) {
	ctx := context.Background()
	hook, other := uuid.NewString(), uuid.NewString()
	var all []access.WebhookDelivery
	for i := range 7 {
		d := newDelivery(hook, epoch.Add(time.Duration(i)*time.Minute))
		must(t, insertDelivery(ctx, s, &d))
		all = append(all, d)
		noise := newDelivery(other, d.CreatedAt)
		must(t, insertDelivery(ctx, s, &noise))
	}
	wantErr(t, insertDelivery(ctx, s, &all[0]), access.ErrDuplicate, "inserting a delivery twice")
	got, err := s.DeliveryByID(ctx, all[0].ID)
	must(t, err)
	if !reflect.DeepEqual(*got, all[0]) {
		t.Fatalf("delivery %+v, want %+v", *got, all[0])
	}
	// Newest first, a page of 3 at a time.
	var ids []string
	before := ""
	for range 10 {
		page, err := s.Deliveries(ctx, hook, before, 3)
		must(t, err)
		for _, d := range page {
			ids = append(ids, d.ID)
		}
		if len(page) < 3 {
			break
		}
		before = page[len(page)-1].ID
	}
	if len(ids) != len(all) {
		t.Fatalf("%d deliveries listed, want %d", len(ids), len(all))
	}
	for i, id := range ids {
		if id != all[len(all)-1-i].ID {
			t.Fatalf("listing %v is not newest first", ids)
		}
	}

	// Due: pending and at or before now, most overdue first.
	due, err := s.DueDeliveries(ctx, epoch.Add(2*time.Minute), 100)
	must(t, err)
	if len(due) != 6 || due[0].NextAttemptAt.After(due[5].NextAttemptAt) {
		t.Fatalf("%d due deliveries, want 6 oldest first: %+v", len(due), due)
	}
	d := all[1]
	d.Attempts, d.Status, d.LastStatus, d.LastError = 1, access.DeliveryDelivered, 204, ""
	must(t, s.UpdateDelivery(ctx, &d, 0))
	wantErr(t, s.UpdateDelivery(ctx, &d, 0), access.ErrNotFound, "an update from a stale attempt count")
	d2 := all[2]
	d2.Attempts, d2.NextAttemptAt, d2.LastStatus, d2.LastError = 1, epoch.Add(time.Hour), 500, "HTTP 500"
	must(t, s.UpdateDelivery(ctx, &d2, 0))
	got, err = s.DeliveryByID(ctx, d2.ID)
	must(t, err)
	if !reflect.DeepEqual(*got, d2) {
		t.Fatalf("updated delivery %+v, want %+v", *got, d2)
	}
	due, err = s.DueDeliveries(ctx, epoch.Add(2*time.Minute), 100)
	must(t, err)
	for _, x := range due {
		if x.ID == d.ID || x.ID == d2.ID {
			t.Fatalf("delivered or rescheduled delivery %s listed as due", x.ID)
		}
	}
	if len(due) != 4 {
		t.Fatalf("%d due deliveries, want 4", len(due))
	}
}

func testAttemptRace(t *testing.T, s access.Store) {
	ctx := context.Background()
	d := newDelivery(uuid.NewString(), epoch)
	must(t, insertDelivery(ctx, s, &d))
	errs := race(16, func(i int) error {
		return s.InsertDeliveryAttempt(ctx, &access.DeliveryAttempt{DeliveryID: d.ID, Number: 1, ClaimedAt: epoch.Add(time.Duration(i) * time.Millisecond)})
	})
	oneWinner(t, errs)
	a := access.DeliveryAttempt{DeliveryID: d.ID, Number: 2, ClaimedAt: epoch.Add(time.Minute)}
	must(t, s.InsertDeliveryAttempt(ctx, &a))
	a.Finished, a.StatusCode, a.Error, a.Duration, a.Outcome, a.NextAttemptAt = true, 503, "HTTP 503", 1500*time.Millisecond,
		access.DeliveryPending, epoch.Add(time.Hour)
	must(t, s.FinishDeliveryAttempt(ctx, &a))
	got, err := s.DeliveryAttempt(ctx, d.ID, 2)
	must(t, err)
	if !reflect.DeepEqual(*got, a) {
		t.Fatalf("attempt %+v, want %+v", *got, a)
	}
	_, err = s.DeliveryAttempt(ctx, d.ID, 3)
	wantErr(t, err, access.ErrNotFound, "reading an attempt not made")
	all, err := s.DeliveryAttempts(ctx, d.ID)
	must(t, err)
	if len(all) != 2 || all[0].Number != 1 || all[0].Finished || !reflect.DeepEqual(all[1], a) {
		t.Fatalf("attempts %+v", all)
	}
}

func testDeliveryPruning(t *testing.T, s access.Store) {
	ctx := context.Background()
	hook := uuid.NewString()
	var ds []access.WebhookDelivery
	for i := range 4 {
		d := newDelivery(hook, epoch.Add(time.Duration(i)*time.Hour))
		must(t, insertDelivery(ctx, s, &d))
		must(t, s.InsertDeliveryAttempt(ctx, &access.DeliveryAttempt{DeliveryID: d.ID, Number: 1, ClaimedAt: d.CreatedAt}))
		ds = append(ds, d)
	}
	n, err := s.DeleteDeliveriesBefore(ctx, epoch.Add(2*time.Hour))
	must(t, err)
	if n != 2 {
		t.Fatalf("deleted %d deliveries, want 2", n)
	}
	for i, d := range ds {
		_, err := s.DeliveryByID(ctx, d.ID)
		as, aerr := s.DeliveryAttempts(ctx, d.ID)
		must(t, aerr)
		if kept := err == nil; kept != (i >= 2) || (len(as) == 1) != kept {
			t.Errorf("delivery %d: read %v, %d attempts", i, err, len(as))
		}
	}
}
