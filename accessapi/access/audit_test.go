package access_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// auditedService is a service over f's store whose audit log listens, with
// clock now.
func auditedService(t *testing.T, f *fixture, now func() time.Time) *access.Service {
	t.Helper()
	audit := access.NewAuditListener(f.store, func(err error) { t.Errorf("audit log: %v", err) })
	return access.NewService(f.store, access.Config{Argon2: cheapArgon2, Now: now, Listeners: []access.EventListener{audit}})
}

func auditEntries(t *testing.T, svc *access.Service, appID string, f access.AuditFilter) []access.AuditEntry {
	t.Helper()
	p, err := svc.AuditLog(context.Background(), appID, f, "", access.MaxPageSize)
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func TestAuditLog_ThrottlingIsRecordedOnceWhenItBeginsToHoldBack(t *testing.T) {
	for _, tt := range []struct {
		counter string
		policy  access.ThrottlePolicy
		// attempt makes the i-th failed attempt.
		attempt func(svc *access.Service, app *access.App, i int) error
		user    bool // the entry names the account's user
	}{
		{access.ThrottledAccountAddress, access.ThrottlePolicy{AccountAddressFree: 3},
			func(svc *access.Service, app *access.App, i int) error {
				return login(svc, app, "192.0.2.1", access.Credentials{Username: "owner", Password: "wrong-guess"})
			}, true},
		{access.ThrottledAddress, access.ThrottlePolicy{AddressFree: 3},
			func(svc *access.Service, app *access.App, i int) error {
				return login(svc, app, "192.0.2.2", access.Credentials{Username: fmt.Sprintf("guess%d", i), Password: "wrong-guess"})
			}, false},
		{access.ThrottledAccount, access.ThrottlePolicy{AccountFree: 3},
			func(svc *access.Service, app *access.App, i int) error {
				return login(svc, app, fmt.Sprintf("192.0.2.%d", 10+i), access.Credentials{Username: "owner", Password: "wrong-guess"})
			}, true},
		{access.ThrottledLicenseCode, access.ThrottlePolicy{CodeFree: 3},
			func(svc *access.Service, app *access.App, i int) error {
				return login(svc, app, "192.0.2.3", access.Credentials{Code: fmt.Sprintf("NO-SUCH-CODE-%d", i)})
			}, false},
	} {
		t.Run(tt.counter, func(t *testing.T) {
			f := newFixture(t, access.AppSettings{Throttle: &tt.policy})
			svc := auditedService(t, f, nil)
			owner, err := svc.SignUp(context.Background(), f.app, access.SignUpRequest{Username: "owner", Password: "right-phrase-42"})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 6 {
				if err := tt.attempt(svc, f.app, i); access.CodeOf(err) != access.CodeInvalidCredentials && access.CodeOf(err) != access.CodeTooManyAttempts {
					t.Fatalf("attempt %d: %v", i, err)
				}
			}
			got := auditEntries(t, svc, f.app.ID, access.AuditFilter{Action: string(access.EventLoginThrottled)})
			if len(got) != 1 {
				t.Fatalf("%d throttle entries, want 1: %+v", len(got), got)
			}
			e := got[0]
			if e.Principal.Kind != access.PrincipalClient || e.Target == "" || string(e.After) != fmt.Sprintf(`{"counter":%q,"failures":3}`, tt.counter) {
				t.Errorf("entry %+v, after %s", e, e.After)
			}
			if tt.user != (e.UserID == owner.ID) {
				t.Errorf("user %q, want the owner's (%s): %v", e.UserID, owner.ID, tt.user)
			}
		})
	}
}

func login(svc *access.Service, app *access.App, addr string, c access.Credentials) error {
	_, err := svc.Login(access.WithClientAddress(context.Background(), addr), app, access.LoginRequest{Credentials: c, IP: addr})
	return err
}

func TestAuditLog_ClientTrafficIsNotRecorded(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	svc := auditedService(t, f, nil)
	ctx := access.WithClientAddress(context.Background(), "192.0.2.9")
	code := f.license(t, minutesGrant(60))
	if _, err := svc.SignUpWithLicense(ctx, f.app, code, ""); err != nil {
		t.Fatal(err)
	}
	g, err := svc.Login(ctx, f.app, access.LoginRequest{Credentials: access.Credentials{Code: code}})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Logout(ctx, f.app, g.Token); err != nil {
		t.Fatal(err)
	}
	if got := auditEntries(t, svc, f.app.ID, access.AuditFilter{}); len(got) != 0 {
		t.Fatalf("sign-up, login and logout recorded: %+v", got)
	}
}

func TestDeleteExpiredAudit_KeepsTheRetention(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	svc := auditedService(t, f, func() time.Time { return now })
	ctx := context.Background()
	for _, name := range []string{"old", "new"} {
		if _, err := svc.SetVariable(ctx, f.app.ID, name, "x"); err != nil {
			t.Fatal(err)
		}
		now = now.Add(10 * 24 * time.Hour)
	}
	for _, tt := range []struct {
		name      string
		retention time.Duration
		deleted   int64
		left      []string
	}{
		{"the default keeps a year", 0, 0, []string{"old", "new"}},
		{"older than the retention go", 15 * 24 * time.Hour, 1, []string{"new"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n, err := svc.DeleteExpiredAudit(ctx, tt.retention)
			if err != nil || n != tt.deleted {
				t.Fatalf("deleted %d (%v), want %d", n, err, tt.deleted)
			}
			var left []string
			for _, e := range auditEntries(t, svc, f.app.ID, access.AuditFilter{}) {
				left = append(left, e.Target)
			}
			if fmt.Sprint(left) != fmt.Sprint(tt.left) {
				t.Fatalf("left %v, want %v", left, tt.left)
			}
		})
	}
}
