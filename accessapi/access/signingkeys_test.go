package access_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

func TestSigningKeys_CreatedWithTheAppAndSealedUnderTheFileKey(t *testing.T) {
	ctx := context.Background()
	store := storetest.Default(t)
	fileKey := bytes.Repeat([]byte{7}, 32)
	svc := access.NewService(store, access.Config{Argon2: cheapArgon2, FileKey: fileKey})
	app, err := svc.CreateApp(ctx, access.AppSettings{Name: ptr("signed")})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := store.SigningKeys(ctx, app.ID)
	if err != nil || len(stored) != 1 || stored[0].Generation != 1 || stored[0].ID != access.SigningKeyID(stored[0].PublicKey) {
		t.Fatalf("keys stored with the application = %+v, %v", stored, err)
	}
	signer, err := svc.ResponseSigner(ctx, app.APIKey)
	if err != nil || signer == nil || signer.KeyID != stored[0].ID {
		t.Fatalf("signer = %+v, %v", signer, err)
	}
	sum := sha256.Sum256([]byte("body"))
	at := time.Unix(1_800_000_000, 0)
	facts := &access.SignedFacts{Method: "GET", Target: "/app_context?x=1", Status: 200, Nonce: "n1", Body: sum[:]}
	hdr := signer.SignResponse(facts, at)
	sig, err := base64.StdEncoding.DecodeString(hdr[strings.Index(hdr, "sig=")+4:])
	if err != nil || !strings.Contains(hdr, "; idx=0; proof=; ") {
		t.Fatalf("%q: %v; want a batch of one", hdr, err)
	}
	salt := strings.SplitN(hdr[strings.Index(hdr, "salt=")+5:], ";", 2)[0]
	msg := access.ResponseSigningInput(facts, at.Unix(), signer.KeyID, salt)
	leaf := access.LeafHash(msg)
	if !ed25519.Verify(stored[0].PublicKey, access.RootMessage(leaf[:]), sig) {
		t.Fatalf("%q does not verify with the published key", hdr)
	}
	if len(stored[0].SealedSeed) != 12+32+16 {
		t.Fatalf("sealed seed of %d bytes, want nonce, sealed seed and tag", len(stored[0].SealedSeed))
	}

	other := access.NewService(store, access.Config{Argon2: cheapArgon2, FileKey: bytes.Repeat([]byte{8}, 32)})
	if s, err := other.ResponseSigner(ctx, app.APIKey); err == nil {
		t.Fatalf("another file key opened the seed: %+v", s)
	}
	// A sealed seed moved to another application does not open either.
	moved := stored[0]
	moved.AppID, moved.Generation = uuid.NewString(), 1
	if err := store.InsertSigningKey(ctx, &moved); err == nil {
		t.Fatal("the same key id was stored twice")
	}
	if s, err := svc.ResponseSigner(ctx, "no such key"); err != nil || s != nil {
		t.Fatalf("signer of an unknown application = %v, %v; want none", s, err)
	}
}

func TestSigningKeys_AnAppWithoutKeysGetsExactlyOneUnderConcurrentFirstUse(t *testing.T) {
	ctx := context.Background()
	store := storetest.Default(t)
	app := &access.App{ID: uuid.NewString(), Name: "old", APIKey: uuid.NewString(), SecretHash: "h", MaxDevices: 1,
		SessionTTL: time.Hour, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	if err := store.InsertApp(ctx, app); err != nil {
		t.Fatal(err)
	}
	// Eight instances over one store sign their first response at once.
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		svc := newService(store)
		wg.Go(func() {
			s, err := svc.ResponseSigner(ctx, app.APIKey)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = s.KeyID
		})
	}
	wg.Wait()
	keys, err := store.SigningKeys(ctx, app.ID)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys = %+v, %v; want one", keys, err)
	}
	for i, id := range ids {
		if id != keys[0].ID {
			t.Fatalf("instance %d signs with %q, the stored key is %q", i, id, keys[0].ID)
		}
	}
}

func TestSigningKeys_RotationOverlapsUntilTheOldKeyIsRetired(t *testing.T) {
	ctx := context.Background()
	store := storetest.Default(t)
	var events []access.Event
	svc := access.NewService(store, access.Config{Argon2: cheapArgon2,
		Listeners: []access.EventListener{func(_ context.Context, e access.Event) error { events = append(events, e); return nil }}})
	// A second instance on the same store learns of the rotation through
	// the event, as the change feed would tell it.
	peer := newService(store)
	app, err := svc.CreateApp(ctx, access.AppSettings{Name: ptr("rotating")})
	if err != nil {
		t.Fatal(err)
	}
	first, err := svc.SigningKeys(ctx, app.ID)
	if err != nil || len(first) != 1 {
		t.Fatalf("keys = %v, %v", first, err)
	}
	if s, _ := peer.ResponseSigner(ctx, app.APIKey); s.KeyID != first[0].ID {
		t.Fatalf("peer signs with %s", s.KeyID)
	}
	k, err := svc.RotateSigningKey(ctx, app.ID)
	if err != nil || k.Generation != 2 {
		t.Fatalf("rotated = %+v, %v", k, err)
	}
	for _, e := range events {
		if e.Kind == access.EventSigningKeyRotated {
			if !e.Kind.InvalidatesCaches() || e.Target != k.ID {
				t.Fatalf("rotation event %+v", e)
			}
			peer.Invalidate(e)
		}
	}
	for name, s := range map[string]*access.Service{"this instance": svc, "the peer": peer} {
		if sg, _ := s.ResponseSigner(ctx, app.APIKey); sg.KeyID != k.ID {
			t.Fatalf("%s signs with %s, want the new key %s", name, sg.KeyID, k.ID)
		}
	}
	keys, _ := svc.SigningKeys(ctx, app.ID)
	if len(keys) != 2 || keys[0].ID != first[0].ID || keys[1].ID != k.ID {
		t.Fatalf("published = %+v, want the old and the new key", keys)
	}

	wantCode(t, svc.RetireSigningKey(ctx, app.ID, k.ID), access.CodeConflict)
	wantCode(t, svc.RetireSigningKey(ctx, app.ID, "nope"), access.CodeNotFound)
	if err := svc.RetireSigningKey(ctx, app.ID, first[0].ID); err != nil {
		t.Fatal(err)
	}
	keys, _ = svc.SigningKeys(ctx, app.ID)
	if len(keys) != 1 || keys[0].ID != k.ID {
		t.Fatalf("after retiring: %+v", keys)
	}
	last := events[len(events)-1]
	if last.Kind != access.EventSigningKeyRetired || last.Target != first[0].ID || !last.Kind.InvalidatesCaches() {
		t.Fatalf("retire event %+v", last)
	}
}

// offlineClaims decodes and verifies an offline token with pub.
func offlineClaims(t *testing.T, token string, pub ed25519.PublicKey) access.OfflineClaims {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] != "aat1" {
		t.Fatalf("token %q is not aat1.<payload>.<signature>", token)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !ed25519.Verify(pub, []byte("aat1."+parts[1]), sig) {
		t.Fatalf("token signature does not verify (%v)", err)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c access.OfflineClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestIssueOfflineToken_BoundByTheSettingTheMembershipAndTheDevice(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	store := storetest.Default(t)
	svc := access.NewService(store, access.Config{Argon2: cheapArgon2, Now: func() time.Time { return now }})
	newApp := func(st access.AppSettings) *access.App {
		st.Name = ptr("offline")
		a, err := svc.CreateApp(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		return &a.App
	}
	pubOf := func(app *access.App) ed25519.PublicKey {
		keys, err := svc.SigningKeys(ctx, app.ID)
		if err != nil {
			t.Fatal(err)
		}
		return keys[len(keys)-1].PublicKey
	}
	member := func(app *access.App, name string, g access.Grant) access.Credentials {
		u, err := svc.SignUp(ctx, app, access.SignUpRequest{Username: name, Password: "vortex-lamp-71", HardwareID: "hw-1"})
		if err != nil {
			t.Fatal(err)
		}
		if g != (access.Grant{}) {
			if _, err := svc.GrantUser(ctx, app.ID, u.ID, access.GrantRequest{Grant: g}); err != nil {
				t.Fatal(err)
			}
		}
		return access.Credentials{Username: name, Password: "vortex-lamp-71"}
	}

	plain := newApp(access.AppSettings{})
	life := member(plain, "lifer", access.Grant{GrantsLifetimeAccess: true})
	tok, err := svc.IssueOfflineToken(ctx, plain, life)
	if err != nil {
		t.Fatal(err)
	}
	c := offlineClaims(t, tok.Token, pubOf(plain))
	if c.AppID != plain.ID || c.Username != "lifer" || !c.Membership.IsActive || !c.Membership.IsLifetime || c.HardwareID != "" ||
		c.IssuedAt != now.Unix() || c.ValidUntil != now.Add(72*time.Hour).Unix() || !tok.ValidUntil.Equal(now.Add(72*time.Hour)) {
		t.Fatalf("lifetime member's token: %+v, valid until %v", c, tok.ValidUntil)
	}

	short := member(plain, "shorty", minutesGrant(90))
	tok, err = svc.IssueOfflineToken(ctx, plain, short)
	if err != nil {
		t.Fatal(err)
	}
	if c := offlineClaims(t, tok.Token, pubOf(plain)); c.ValidUntil != now.Add(90*time.Minute).Unix() || c.Membership.ExpiresAt == nil {
		t.Fatalf("token of a membership ending in 90 minutes is valid until %v (%+v)", time.Unix(c.ValidUntil, 0).UTC(), c)
	}

	wantCode(t, func() error {
		_, err := svc.IssueOfflineToken(ctx, plain, member(plain, "lapsed", access.Grant{}))
		return err
	}(),
		access.CodeMembershipInactive)
	anon := newApp(access.AppSettings{AnonymousAccess: ptr(true)})
	wantCode(t, func() error { _, err := svc.IssueOfflineToken(ctx, anon, access.Credentials{}); return err }(),
		access.CodeAuthenticationRequired)

	ttl := 2 * time.Hour
	device := newApp(access.AppSettings{DeviceAuth: ptr(true), OfflineTokenTTL: &ttl})
	creds := member(device, "dev", access.Grant{GrantsLifetimeAccess: true})
	wantCode(t, func() error { _, err := svc.IssueOfflineToken(ctx, device, creds); return err }(), access.CodeDeviceRequired)
	creds.HardwareID = "hw-1"
	tok, err = svc.IssueOfflineToken(ctx, device, creds)
	if err != nil {
		t.Fatal(err)
	}
	if c := offlineClaims(t, tok.Token, pubOf(device)); c.HardwareID != "hw-1" || c.ValidUntil != now.Add(ttl).Unix() {
		t.Fatalf("device token %+v", c)
	}
	bad := ttl / 1000
	if _, err := svc.UpdateApp(ctx, device.ID, access.AppSettings{OfflineTokenTTL: &bad}); access.CodeOf(err) != access.CodeValidationFailed {
		t.Fatalf("a lifetime under a minute: %v", err)
	}
}

// TestSigningKeys_ARotationReachesAnotherInstanceThroughTheFeed: the other
// instance, which cached the old key, signs with the new one within a few
// feed reads (250 ms apart; 3 s leaves room for a loaded -race run), told
// by the change feed: the staleness bound is an hour.
func TestSigningKeys_ARotationReachesAnotherInstanceThroughTheFeed(t *testing.T) {
	ctx := context.Background()
	store := storetest.Default(t)
	cfg := feedTestConfig()
	cfg.Staleness = time.Hour // only the feed can evict within the test
	a := startInstance(t, store, cfg, access.FeedConfig{})
	b := startInstance(t, store, cfg, access.FeedConfig{})
	app, err := a.svc.CreateApp(ctx, access.AppSettings{Name: ptr("fed")})
	if err != nil {
		t.Fatal(err)
	}
	old, err := b.svc.ResponseSigner(ctx, app.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	k, err := a.svc.RotateSigningKey(ctx, app.ID)
	if err != nil || k.ID == old.KeyID {
		t.Fatalf("rotated to %+v, %v", k, err)
	}
	took := waitFor(t, "the other instance signs with the new key", 3*time.Second, func() bool {
		s, err := b.svc.ResponseSigner(ctx, app.APIKey)
		return err == nil && s.KeyID == k.ID
	})
	t.Logf("the rotation reached the other instance in %v", took)
}

// TestSigningKeys_AnInstanceThatResyncsWithTheFeedDropsItsKeyRings: a
// rotation appended before an instance's first read of the feed is not
// applied as an entry (the first read starts at the newest one and empties
// the caches instead), so the emptying must include the key rings, or the
// instance signs with the old key until the staleness bound.
func TestSigningKeys_AnInstanceThatResyncsWithTheFeedDropsItsKeyRings(t *testing.T) {
	ctx := context.Background()
	store := storetest.Default(t)
	cfg := feedTestConfig()
	cfg.Staleness = time.Hour
	a := startInstance(t, store, cfg, access.FeedConfig{})
	in := newInstance(store, cfg, access.FeedConfig{})
	b := in.svc
	app, err := a.svc.CreateApp(ctx, access.AppSettings{Name: ptr("resync")})
	if err != nil {
		t.Fatal(err)
	}
	old, err := b.ResponseSigner(ctx, app.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	k, err := a.svc.RotateSigningKey(ctx, app.ID)
	if err != nil || k.ID == old.KeyID {
		t.Fatalf("rotated to %+v, %v", k, err)
	}
	if err := in.feed.Poll(ctx, b); err != nil { // b's first read of the feed
		t.Fatal(err)
	}
	if s, err := b.ResponseSigner(ctx, app.APIKey); err != nil || s.KeyID != k.ID {
		t.Fatalf("after its first read of the feed the instance signs with %s (%v), want the new key %s", s.KeyID, err, k.ID)
	}
}
