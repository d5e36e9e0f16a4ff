package webhook_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/webhook"
)

func TestDelivery_APendingDeliveryMovedByExportAndImportIsSentByTheNewStoresDispatcher(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		dst  func(testing.TB) access.Store
	}{
		{"SQLite to MongoDB", func(t testing.TB) access.Store { return storetest.Mongo(t) }},
		{"SQLite to SQLite", func(t testing.TB) access.Store { return storetest.SQLite(t) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The old server: an endpoint in a rotation's overlap, and a
			// delivery whose first attempt failed, its retry due.
			rc := newReceiver(t, nil)
			src := newRig(t, storetest.SQLite(t), nil, "")
			created := src.hook(t, rc.URL, access.EventUserSignedUp)
			rotated, err := src.svc.RotateWebhookSecret(ctx, src.app.ID, created.ID, 24*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			src.signUp(t, "mover")
			d, now := src.onlyDelivery(t, created.ID), src.svc.Now()
			failed := access.DeliveryAttempt{DeliveryID: d.ID, Number: 1, ClaimedAt: now.Add(-time.Minute), Finished: true, StatusCode: 503,
				Error: "HTTP 503", Duration: 30 * time.Millisecond, Outcome: access.DeliveryPending, NextAttemptAt: now}
			if err := src.store.InsertDeliveryAttempt(ctx, &failed); err != nil {
				t.Fatal(err)
			}
			retry := d
			retry.Attempts, retry.LastStatus, retry.LastError, retry.NextAttemptAt = 1, 503, "HTTP 503", now
			if err := src.store.UpdateDelivery(ctx, &retry, 0); err != nil {
				t.Fatal(err)
			}
			var export bytes.Buffer
			if _, err := src.svc.Export(ctx, &export, nil); err != nil {
				t.Fatal(err)
			}

			// The new server, with the same file key: import, then run
			// its dispatcher.
			dst := tt.dst(t)
			if _, err := access.NewService(dst, access.Config{FileKey: src.fileKey}).Import(ctx, &export); err != nil {
				t.Fatalf("import: %v", err)
			}
			r := newRig(t, dst, src.fileKey, src.app.ID)
			r.run(t, webhook.Config{Timeout: time.Second})
			got := rc.wait(t, 1, 10*time.Second)[0]
			if got.id != d.ID || !bytes.Equal(got.body, d.Payload) {
				t.Fatalf("the receiver got delivery %s %s, want %s %s", got.id, got.body, d.ID, d.Payload)
			}
			for i, secret := range []string{created.Secret, rotated.Secret} {
				if err := webhook.Verify(secret, got.id, got.stamp, got.signature, got.body, time.Now(), 5*time.Minute); err != nil {
					t.Errorf("secret %d: the imported sealed secret did not sign the delivery: %v", i, err)
				}
			}
			delivered := waitStatus(t, r, created.ID, access.DeliveryDelivered)
			as, err := dst.DeliveryAttempts(ctx, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			if delivered.Attempts != 2 || len(as) != 2 || as[0].StatusCode != 503 || as[1].Number != 2 || as[1].StatusCode != 204 {
				t.Fatalf("delivery %+v with attempts %+v, want the imported attempt 1 (503) and a new attempt 2 (204)", delivered, as)
			}
			time.Sleep(100 * time.Millisecond)
			if n := rc.count(); n != 1 {
				t.Fatalf("the receiver got %d requests, want 1", n)
			}
		})
	}
}
