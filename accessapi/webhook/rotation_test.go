package webhook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/webhook"
)

func TestWebhookRotation_DeliveriesCarryBothSignaturesDuringTheOverlap(t *testing.T) {
	for _, tt := range []struct {
		name string
		// overlaps are the rotations made, in order.
		overlaps []time.Duration
		// later is how far past the rotations the delivery is sent.
		later time.Duration
		// verifies says which secret verifies the delivery: the one of
		// creation, then the one of each rotation.
		verifies []bool
	}{
		{"during the overlap the old and the new secret verify", []time.Duration{24 * time.Hour}, 0, []bool{true, true}},
		{"after the overlap only the new secret verifies", []time.Duration{time.Hour}, 2 * time.Hour, []bool{false, true}},
		{"an overlap of 0 stops the old secret at once", []time.Duration{0}, 0, []bool{false, true}},
		{"a second rotation replaces the previous secret by the current one", []time.Duration{24 * time.Hour, 24 * time.Hour}, 0,
			[]bool{false, true, true}},
		{"a rotation without overlap ends the previous overlap", []time.Duration{24 * time.Hour, 0}, 0, []bool{false, false, true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, storetest.SQLite(t), nil, "")
			rc := newReceiver(t, nil)
			created := r.hook(t, rc.URL, access.EventUserSignedUp)
			secrets := []string{created.Secret}
			for _, overlap := range tt.overlaps {
				rotated, err := r.svc.RotateWebhookSecret(context.Background(), r.app.ID, created.ID, overlap)
				if err != nil {
					t.Fatal(err)
				}
				secrets = append(secrets, rotated.Secret)
			}
			clock := func() time.Time { return time.Now().Add(tt.later) }
			r.run(t, webhook.Config{Now: clock})
			r.signUp(t, "rotated")
			got := rc.wait(t, 1, 10*time.Second)[0]

			want := 0
			for i, secret := range secrets {
				err := webhook.Verify(secret, got.id, got.stamp, got.signature, got.body, clock(), 5*time.Minute)
				if (err == nil) != tt.verifies[i] {
					t.Errorf("secret %d of %d: verify error %v, want it to verify: %t", i, len(secrets)-1, err, tt.verifies[i])
				}
				if tt.verifies[i] {
					want++
				}
			}
			sigs := strings.Fields(got.signature)
			if len(sigs) != want {
				t.Fatalf("webhook-signature %q holds %d signatures, want %d", got.signature, len(sigs), want)
			}
			// The new secret's signature comes first.
			if err := webhook.Verify(secrets[len(secrets)-1], got.id, got.stamp, sigs[0], got.body, clock(), 5*time.Minute); err != nil {
				t.Errorf("the first signature is not the new secret's: %v", err)
			}
			waitStatus(t, r, created.ID, access.DeliveryDelivered)
		})
	}
}

func TestWebhookRotation_OutOfBoundsOverlapsAreRefused(t *testing.T) {
	r := newRig(t, storetest.SQLite(t), nil, "")
	h := r.hook(t, "https://example.com/hook")
	for _, overlap := range []time.Duration{-time.Second, access.MaxWebhookSecretOverlap + time.Second, 1500 * time.Millisecond} {
		_, err := r.svc.RotateWebhookSecret(context.Background(), r.app.ID, h.ID, overlap)
		if access.CodeOf(err) != access.CodeValidationFailed {
			t.Errorf("overlap %s: error %v, want %s", overlap, err, access.CodeValidationFailed)
		}
	}
	w, err := r.svc.Webhook(context.Background(), r.app.ID, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if secrets, err := access.OpenWebhookSecrets(access.WebhookKey(r.fileKey), w, time.Now()); err != nil || len(secrets) != 1 || secrets[0] != h.Secret {
		t.Fatalf("after refused rotations the secrets are %d (%v), want the one of creation", len(secrets), err)
	}
}
