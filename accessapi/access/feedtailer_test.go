package access_test

import (
	"context"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// TestFeedTailer_FlushesCachesWhenEntriesWerePrunedUnread stops an instance
// from reading the feed while another one changes a user and the feed is
// pruned past it: when it reads again it cannot know what it missed, so it
// empties its caches and answers from the store.
func TestFeedTailer_FlushesCachesWhenEntriesWerePrunedUnread(t *testing.T) {
	ctx := context.Background()
	store := storetest.SQLite(t)
	a := startInstance(t, store, feedTestConfig(), access.FeedConfig{})
	flushed := 0
	tailB := access.NewFeedTailer(store, access.FeedConfig{OnFlush: func() { flushed++ }})
	cfg := feedTestConfig()
	cfg.Listeners = []access.EventListener{tailB.Record}
	svcB := access.NewService(store, cfg)
	must(t, tailB.Poll(ctx, svcB))

	created, err := a.svc.CreateApp(ctx, access.AppSettings{Name: ptr("pruned")})
	must(t, err)
	appA, err := a.svc.AuthenticateApp(ctx, created.APIKey, created.APISecret)
	must(t, err)
	code := (&fixture{store: store, svc: a.svc, app: appA}).license(t, minutesGrant(600))
	view, err := a.svc.SignUpWithLicense(ctx, appA, code, "")
	must(t, err)
	must(t, tailB.Poll(ctx, svcB))
	appB, err := svcB.AuthenticateApp(ctx, created.APIKey, created.APISecret)
	must(t, err)
	if _, err := svcB.Authenticate(ctx, appB, access.Credentials{Code: code}, true); err != nil {
		t.Fatal(err)
	}

	// b cannot read: its read fails.
	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	if err := tailB.Poll(expired, svcB); err == nil {
		t.Fatal("a read with an expired deadline succeeded")
	}
	must(t, a.svc.BanUser(ctx, created.ID, view.ID, "missed"))
	_, err = a.svc.SetVariable(ctx, created.ID, "v", "1")
	must(t, err)
	if _, err := store.DeleteChangesBefore(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	must(t, tailB.Poll(ctx, svcB))
	if flushed != 1 {
		t.Fatalf("caches flushed %d times, want once", flushed)
	}
	_, err = svcB.Authenticate(ctx, appB, access.Credentials{Code: code}, true)
	wantCode(t, err, access.CodeUserBanned)
	must(t, tailB.Poll(ctx, svcB))
	if flushed != 1 {
		t.Fatalf("caches flushed %d times after catching up, want once", flushed)
	}
}

// TestFeedTailer_ReportsTheLagOfEachEntryFromAnotherInstance: an entry
// written by another instance is reported once, with the time from its
// change to its eviction here; the instance's own entries are not.
func TestFeedTailer_ReportsTheLagOfEachEntryFromAnotherInstance(t *testing.T) {
	ctx := context.Background()
	store := storetest.SQLite(t)
	a := startInstance(t, store, feedTestConfig(), access.FeedConfig{})
	var lags []time.Duration
	tailB := access.NewFeedTailer(store, access.FeedConfig{OnApplied: func(lag time.Duration) { lags = append(lags, lag) }})
	cfg := feedTestConfig()
	cfg.Listeners = []access.EventListener{tailB.Record}
	svcB := access.NewService(store, cfg)
	must(t, tailB.Poll(ctx, svcB))

	created, err := a.svc.CreateApp(ctx, access.AppSettings{Name: ptr("lag")})
	must(t, err)
	_, err = svcB.SetVariable(ctx, created.ID, "own", "1") // b's own entry
	must(t, err)
	time.Sleep(50 * time.Millisecond)
	_, err = a.svc.SetVariable(ctx, created.ID, "theirs", "1")
	must(t, err)
	time.Sleep(30 * time.Millisecond)
	must(t, tailB.Poll(ctx, svcB))
	if len(lags) != 1 {
		t.Fatalf("%d lags reported, want 1 (another instance's entry only): %v", len(lags), lags)
	}
	if lags[0] < 30*time.Millisecond || lags[0] > 10*time.Second {
		t.Fatalf("lag %v, want the ≥30ms between the change and the read", lags[0])
	}
	must(t, tailB.Poll(ctx, svcB))
	if len(lags) != 1 {
		t.Fatalf("an entry was reported again: %v", lags)
	}
}

// TestFeed_LicenseSignUpWritesNoEntryButAnActivationDoes: a user a license
// sign-up creates cannot be in any instance's cache, so the sign-up is one
// store write with no feed entry; activating a code for an existing user
// is an entry, which the other instance obeys.
func TestFeed_LicenseSignUpWritesNoEntryButAnActivationDoes(t *testing.T) {
	ctx := context.Background()
	store := storetest.SQLite(t)
	a := startInstance(t, store, feedTestConfig(), access.FeedConfig{})
	created, err := a.svc.CreateApp(ctx, access.AppSettings{Name: ptr("signups")})
	must(t, err)
	app, err := a.svc.AuthenticateApp(ctx, created.APIKey, created.APISecret)
	must(t, err)
	f := &fixture{store: store, svc: a.svc, app: app}
	before, err := store.LastChange(ctx)
	must(t, err)
	if _, err := a.svc.SignUpWithLicense(ctx, app, f.license(t, minutesGrant(60)), ""); err != nil {
		t.Fatal(err)
	}
	after, err := store.LastChange(ctx)
	must(t, err)
	if after != before {
		t.Fatalf("a license sign-up wrote %d feed entries, want none", after-before)
	}
	if _, err := a.svc.SignUp(ctx, app, access.SignUpRequest{Username: "existing", Password: "vortex-lamp-71"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.svc.ActivateLicense(ctx, app, access.ActivateRequest{Code: f.license(t, minutesGrant(60)), Username: "existing", Password: "vortex-lamp-71"}); err != nil {
		t.Fatal(err)
	}
	cs, err := store.ChangesAfter(ctx, after, 10)
	must(t, err)
	if len(cs) != 1 || cs[0].Kind != access.EventLicenseActivated {
		t.Fatalf("after an activation the feed has %+v, want one license.activated entry", cs)
	}
}
