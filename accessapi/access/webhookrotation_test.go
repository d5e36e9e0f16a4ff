package access_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

func TestWebhookRotation_ThePreviousSecretIsSealedAndSignsUntilTheOverlapEnds(t *testing.T) {
	store := storetest.SQLite(t)
	fileKey := bytes.Repeat([]byte{7}, 32)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var events []access.Event
	svc := access.NewService(store, access.Config{Argon2: cheapArgon2, FileKey: fileKey, Now: func() time.Time { return now },
		Listeners: []access.EventListener{func(_ context.Context, e access.Event) error { events = append(events, e); return nil }}})
	ctx := context.Background()
	app, err := svc.CreateApp(ctx, access.AppSettings{Name: ptr("rotated")})
	if err != nil {
		t.Fatal(err)
	}
	url := "https://example.com/hook"
	created, err := svc.CreateWebhook(ctx, app.ID, access.WebhookSettings{URL: &url, Events: []access.EventKind{access.EventUserBanned}})
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := svc.RotateWebhookSecret(ctx, app.ID, created.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// A settings change afterwards keeps both secrets.
	if _, err := svc.UpdateWebhook(ctx, app.ID, created.ID, access.WebhookSettings{Enabled: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	stored, err := store.WebhookByID(ctx, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	for name, secret := range map[string]string{"previous": created.Secret, "new": rotated.Secret} {
		for _, sealed := range [][]byte{stored.SealedSecret, stored.PreviousSealedSecret} {
			if bytes.Contains(sealed, []byte(strings.TrimPrefix(secret, access.WebhookSecretPrefix))) {
				t.Fatalf("the store holds the %s secret in the clear", name)
			}
		}
	}
	if !stored.PreviousSecretUntil.Equal(now.Add(time.Hour)) {
		t.Fatalf("the previous secret signs until %s, want an hour from %s", stored.PreviousSecretUntil, now)
	}
	key := access.WebhookKey(fileKey)
	for _, tt := range []struct {
		at   time.Time
		want []string
	}{
		{now, []string{rotated.Secret, created.Secret}},
		{now.Add(time.Hour - time.Millisecond), []string{rotated.Secret, created.Secret}},
		{now.Add(time.Hour), []string{rotated.Secret}},
		{now.Add(48 * time.Hour), []string{rotated.Secret}},
	} {
		got, err := access.OpenWebhookSecrets(key, stored, tt.at)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("at %s: %d secrets (%v), want %d, the new one first", tt.at.Sub(now), len(got), err, len(tt.want))
		}
	}
	moved := *stored
	moved.ID = "another-endpoint"
	moved.SealedSecret, _ = access.SealWebhookSecret(key, moved.ID, rotated.Secret)
	if _, err := access.OpenWebhookSecrets(key, &moved, now); err == nil {
		t.Error("a previous secret opens for another endpoint")
	}
	if _, err := access.OpenWebhookSecrets(access.WebhookKey(bytes.Repeat([]byte{8}, 32)), stored, now); err == nil {
		t.Error("another file key opens the secrets")
	}

	i := slices.IndexFunc(events, func(e access.Event) bool { return e.Kind == access.EventWebhookRotated })
	if i < 0 {
		t.Fatal("no webhook.secret_rotated event")
	}
	e := events[i]
	if e.Target != created.ID || e.After["overlap_seconds"] != int64(3600) || strings.Contains(fmt.Sprint(e), "whsec_") {
		t.Fatalf("event of %s after %v, want the endpoint, overlap_seconds 3600 and no secret", e.Target, e.After)
	}
}
