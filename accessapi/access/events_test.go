package access_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
)

// recorder is an EventListener that keeps what it is told.
type recorder struct {
	mu     sync.Mutex
	events []access.Event
}

func (r *recorder) listen(_ context.Context, e access.Event) error {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	return nil
}

func (r *recorder) kinds() []access.EventKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []access.EventKind
	for _, e := range r.events {
		out = append(out, e.Kind)
	}
	return out
}

func TestEvents_EveryChangeIsToldInOrder(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	rec := &recorder{}
	svc := access.NewService(f.store, access.Config{Argon2: cheapArgon2, Listeners: []access.EventListener{rec.listen}})
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	ls, err := svc.CreateLicenses(ctx, f.app.ID, access.LicenseRequest{Count: 2, Grant: minutesGrant(60)})
	must(err)
	u, err := svc.SignUpWithLicense(ctx, f.app, ls[0].Code, "")
	must(err)
	g, err := svc.Login(ctx, f.app, access.LoginRequest{Credentials: access.Credentials{Code: ls[0].Code}})
	must(err)
	must(svc.Logout(ctx, f.app, g.Token))
	_, err = svc.GrantUser(ctx, f.app.ID, u.ID, access.GrantRequest{Grant: minutesGrant(5)})
	must(err)
	must(svc.BanUser(ctx, f.app.ID, u.ID, "abuse"))
	must(svc.UnbanUser(ctx, f.app.ID, u.ID))
	must(svc.ResetDevices(ctx, f.app.ID, u.ID))
	must(svc.EndSessions(ctx, f.app.ID, u.ID))
	_, err = svc.UpdateApp(ctx, f.app.ID, access.AppSettings{AnonymousAccess: ptr(true)})
	must(err)
	_, err = svc.RotateSecret(ctx, f.app.ID)
	must(err)
	_, err = svc.SetVariable(ctx, f.app.ID, "motd", "hello")
	must(err)
	must(svc.DeleteLicense(ctx, f.app.ID, ls[1].ID))
	must(svc.DeleteUser(ctx, f.app.ID, u.ID))

	want := []access.EventKind{
		access.EventLicensesCreated, access.EventLicenseActivated, access.EventUserSignedUp,
		access.EventLoggedIn, access.EventLoggedOut, access.EventMembershipGranted,
		access.EventUserBanned, access.EventUserUnbanned, access.EventDevicesReset, access.EventSessionsEnded,
		access.EventAppChanged, access.EventSecretRotated, access.EventContentChanged,
		access.EventLicenseDeleted, access.EventUserDeleted,
	}
	if got := rec.kinds(); !slices.Equal(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	for _, e := range rec.events {
		if e.AppID != f.app.ID || e.At.IsZero() {
			t.Errorf("event %+v lacks its application or time", e)
		}
	}
}

func TestInvalidate_AnotherInstanceObeysAnEventAtOnce(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	code := f.license(t, minutesGrant(60))
	u, err := f.svc.SignUpWithLicense(ctx, f.app, code, "")
	if err != nil {
		t.Fatal(err)
	}
	// Instance B (default staleness, 5s) caches the user as not banned.
	b := newService(f.store)
	creds := access.Credentials{Code: code}
	if _, err := b.Authenticate(ctx, f.app, creds, true); err != nil {
		t.Fatal(err)
	}
	// Instance A bans; B is handed A's events, as a change feed would.
	a := access.NewService(f.store, access.Config{Argon2: cheapArgon2, Listeners: []access.EventListener{
		func(_ context.Context, e access.Event) error { b.Invalidate(e); return nil },
	}})
	if err := a.BanUser(ctx, f.app.ID, u.ID, ""); err != nil {
		t.Fatal(err)
	}
	_, err = b.Authenticate(ctx, f.app, creds, true)
	wantCode(t, err, access.CodeUserBanned)
}
