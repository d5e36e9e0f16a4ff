package conformance

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
)

// testWebhookRotation checks RotateWebhookSecret: the secrets are written
// together only if the stored secret is the one the rotation replaced, a
// settings change leaves them alone, and an overlap can be ended. (Two
// rotations at the same instant are not raced here: the conditional update
// is atomic on MongoDB and SQLite, not on FerretDB, the test server.)
func testWebhookRotation(t *testing.T, s access.Store) {
	ctx := context.Background()
	w := access.Webhook{ID: uuid.NewString(), AppID: uuid.NewString(), URL: "https://example.com/hook",
		Events: []access.EventKind{access.EventUserSignedUp}, SealedSecret: []byte{1}, Enabled: true, CreatedAt: epoch}
	must(t, s.InsertWebhook(ctx, &w))
	read := func(what string) access.Webhook {
		t.Helper()
		got, err := s.WebhookByID(ctx, w.ID)
		must(t, err)
		if !reflect.DeepEqual(*got, w) {
			t.Fatalf("%s: webhook %+v, want %+v", what, *got, w)
		}
		return *got
	}
	if read("inserted"); w.PreviousSealedSecret != nil || !w.PreviousSecretUntil.IsZero() {
		t.Fatal("a new webhook has a previous secret")
	}

	rotated := w
	rotated.SealedSecret, rotated.PreviousSealedSecret, rotated.PreviousSecretUntil = []byte{2}, []byte{1}, epoch.Add(24*time.Hour)
	must(t, s.RotateWebhookSecret(ctx, &rotated, []byte{1}))
	w = rotated
	read("rotated with an overlap")

	stale := w
	stale.SealedSecret, stale.PreviousSealedSecret = []byte{9}, []byte{1}
	wantErr(t, s.RotateWebhookSecret(ctx, &stale, []byte{1}), access.ErrNotFound, "rotating from a secret replaced meanwhile")
	read("after a stale rotation")

	changed := w
	changed.URL, changed.Enabled, changed.SealedSecret, changed.PreviousSealedSecret, changed.PreviousSecretUntil =
		"https://example.com/moved", false, []byte{7}, nil, time.Time{}
	must(t, s.ReplaceWebhook(ctx, &changed))
	w.URL, w.Enabled = changed.URL, changed.Enabled
	read("a settings change keeps the secrets")

	again := w
	again.SealedSecret, again.PreviousSealedSecret, again.PreviousSecretUntil = []byte{3}, []byte{2}, epoch.Add(48*time.Hour)
	must(t, s.RotateWebhookSecret(ctx, &again, []byte{2}))
	w = again
	read("rotated during the overlap: the previous secret is replaced")

	ended := w
	ended.SealedSecret, ended.PreviousSealedSecret, ended.PreviousSecretUntil = []byte{4}, nil, time.Time{}
	must(t, s.RotateWebhookSecret(ctx, &ended, w.SealedSecret))
	w = ended
	read("rotated without an overlap")

	must(t, s.DeleteWebhook(ctx, w.ID))
	wantErr(t, s.RotateWebhookSecret(ctx, &ended, w.SealedSecret), access.ErrNotFound, "rotating a deleted webhook")
}
