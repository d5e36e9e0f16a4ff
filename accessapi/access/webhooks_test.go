package access_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

func TestWebhookSecret_StoredSealedUnderAKeyDerivedFromTheFileKey(t *testing.T) {
	store := storetest.SQLite(t)
	fileKey := bytes.Repeat([]byte{7}, 32)
	svc := access.NewService(store, access.Config{Argon2: cheapArgon2, FileKey: fileKey})
	ctx := context.Background()
	app, err := svc.CreateApp(ctx, access.AppSettings{Name: ptr("sealed")})
	if err != nil {
		t.Fatal(err)
	}
	url := "https://example.com/hook"
	w, err := svc.CreateWebhook(ctx, app.ID, access.WebhookSettings{URL: &url, Events: []access.EventKind{access.EventUserBanned}})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := store.WebhookByID(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(stored.SealedSecret, []byte(w.Secret)) || bytes.Contains(stored.SealedSecret, []byte(strings.TrimPrefix(w.Secret, "whsec_"))) {
		t.Fatal("the store holds the secret in the clear")
	}
	if got, err := access.OpenWebhookSecret(access.WebhookKey(fileKey), stored); err != nil || got != w.Secret {
		t.Fatalf("opened %q, %v; want the secret", got, err)
	}
	for name, key := range map[string][]byte{"the file key itself": fileKey, "another file key's": access.WebhookKey(bytes.Repeat([]byte{8}, 32))} {
		if _, err := access.OpenWebhookSecret(key, stored); err == nil {
			t.Errorf("%s opens the secret", name)
		}
	}
	moved := *stored
	moved.ID = "another-endpoint"
	if _, err := access.OpenWebhookSecret(access.WebhookKey(fileKey), &moved); err == nil {
		t.Error("a sealed secret opens for another endpoint")
	}
}

func TestWebhookPayload_NamesTheEventWithoutSecrets(t *testing.T) {
	e := access.Event{Kind: access.EventLoggedOut, AppID: "app", UserID: "user", Username: "alice",
		SessionHash: "session-hash-not-sent", Target: "target-not-sent", After: map[string]any{"reason": "not-sent"}}
	got := string(access.WebhookPayload(e))
	want := `{"type":"session.ended","timestamp":"0001-01-01T00:00:00.000Z","data":{"app_id":"app","user_id":"user","username":"alice"}}`
	if got != want {
		t.Fatalf("payload %s, want %s", got, want)
	}
}

// TestWebhookOutbox_AnEndpointMadeOnAnotherInstanceIsToldOfEventsOnceTheFeedBringsIt:
// instance B's outbox has cached that the application has no endpoint (for
// an hour, so only the feed can refresh it); an endpoint made through A
// gets B's next events once B has read the feed.
func TestWebhookOutbox_AnEndpointMadeOnAnotherInstanceIsToldOfEventsOnceTheFeedBringsIt(t *testing.T) {
	ctx := context.Background()
	store := storetest.Default(t)
	cfg := feedTestConfig()
	cfg.Staleness = time.Hour
	a := startInstance(t, store, cfg, access.FeedConfig{})
	outbox := access.NewWebhookOutbox(store, access.WebhookOutboxConfig{CacheTTL: time.Hour})
	bcfg := cfg
	bcfg.Listeners = append(bcfg.Listeners, outbox.Listen)
	b := startInstance(t, store, bcfg, access.FeedConfig{})
	b.feed.Follow(outbox)
	app, err := a.svc.CreateApp(ctx, access.AppSettings{Name: ptr("hooked")})
	if err != nil {
		t.Fatal(err)
	}
	signUp := func(name string) {
		t.Helper()
		if _, err := b.svc.SignUp(ctx, &app.App, access.SignUpRequest{Username: name, Password: "vortex-lamp-71"}); err != nil {
			t.Fatal(err)
		}
	}
	signUp("before") // B's outbox now holds "no endpoints"
	url := "https://example.com/hook"
	hook, err := a.svc.CreateWebhook(ctx, app.ID, access.WebhookSettings{URL: &url, Events: []access.EventKind{access.EventUserSignedUp}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	took := waitFor(t, "a sign-up on the other instance is delivered to the new endpoint", 3*time.Second, func() bool {
		n++
		signUp(fmt.Sprint("after-", n))
		ds, err := store.Deliveries(ctx, hook.ID, "", 10)
		return err == nil && len(ds) > 0
	})
	t.Logf("the endpoint reached the other instance's outbox in %v", took)
}
