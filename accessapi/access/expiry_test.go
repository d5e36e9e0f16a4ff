package access_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// clock is a settable time source for the service under test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func TestSessionsAndMemberships_ExpireWithTime(t *testing.T) {
	f := newFixture(t, access.AppSettings{SessionTTL: ptr(2 * time.Hour)})
	clk := &clock{now: time.Now()}
	svc := access.NewService(f.store, access.Config{Argon2: cheapArgon2, Now: clk.Now})
	ctx := context.Background()
	code := f.license(t, minutesGrant(180))
	if _, err := svc.SignUpWithLicense(ctx, f.app, code, ""); err != nil {
		t.Fatal(err)
	}
	grant, err := svc.Login(ctx, f.app, access.LoginRequest{Credentials: access.Credentials{Code: code}})
	if err != nil {
		t.Fatal(err)
	}
	if d := grant.ExpiresAt.Sub(clk.Now()); d < 2*time.Hour-time.Second || d > 2*time.Hour {
		t.Fatalf("session expires in %v, want the app's 2h", d)
	}
	steps := []struct {
		after     time.Duration
		creds     access.Credentials
		wantError access.Code
	}{
		{time.Hour, access.Credentials{Token: grant.Token}, ""},
		{time.Hour, access.Credentials{Token: grant.Token}, access.CodeSessionExpired},
		{0, access.Credentials{Code: code}, ""},
		{time.Hour, access.Credentials{Code: code}, access.CodeMembershipInactive},
	}
	for _, s := range steps {
		clk.advance(s.after)
		_, err := svc.Authenticate(ctx, f.app, s.creds, true)
		if s.wantError == "" && err != nil {
			t.Fatalf("after +%v: %v", s.after, err)
		}
		if s.wantError != "" {
			wantCode(t, err, s.wantError)
		}
	}
	// Expired sessions are deleted after the grace period.
	if n, err := svc.DeleteExpiredSessions(ctx, 0); err != nil || n != 1 {
		t.Fatalf("deleted %d sessions (%v), want 1", n, err)
	}
	_, err = svc.Authenticate(ctx, f.app, access.Credentials{Token: grant.Token}, true)
	wantCode(t, err, access.CodeInvalidCredentials)
}

func TestRequireActive_FalseLetsInactiveMembersThrough(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	if _, err := f.svc.SignUp(ctx, f.app, access.SignUpRequest{Username: "vic", Password: "vortex-lamp-71"}); err != nil {
		t.Fatal(err)
	}
	creds := access.Credentials{Username: "vic", Password: "vortex-lamp-71"}
	_, err := f.svc.Authenticate(ctx, f.app, creds, true)
	wantCode(t, err, access.CodeMembershipInactive)
	u, err := f.svc.Authenticate(ctx, f.app, creds, false)
	if err != nil || u == nil || u.Membership.IsActive(time.Now()) {
		t.Fatalf("got %+v, %v", u, err)
	}
}
