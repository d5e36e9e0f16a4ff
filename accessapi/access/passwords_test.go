package access_test

import (
	"context"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
)

func TestChangePassword_KeepsThisSessionEndsTheOthersAndTheOldPassword(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	if _, err := f.svc.SignUp(ctx, f.app, access.SignUpRequest{Username: "paula", Password: "first-secret-77"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.GrantUser(ctx, f.app.ID, mustUserID(t, f, "paula"), access.GrantRequest{Grant: minutesGrant(60)}); err != nil {
		t.Fatal(err)
	}
	old := access.Credentials{Username: "paula", Password: "first-secret-77"}
	loginWith := func(c access.Credentials) string {
		t.Helper()
		g, err := f.svc.Login(ctx, f.app, access.LoginRequest{Credentials: c})
		if err != nil {
			t.Fatal(err)
		}
		return g.Token
	}
	here, elsewhere := loginWith(old), loginWith(old)
	// The old password is cached as verified before the change.
	if _, err := f.svc.Authenticate(ctx, f.app, old, true); err != nil {
		t.Fatal(err)
	}

	change := access.PasswordChange{Username: "paula", OldPassword: "first-secret-77", NewPassword: "second-secret-88", Token: here}
	wrongOld := change
	wrongOld.OldPassword = "not-it-at-all"
	wantCode(t, f.svc.ChangePassword(ctx, f.app, wrongOld), access.CodeInvalidCredentials)
	common := change
	common.NewPassword = "iloveyou"
	wantCode(t, f.svc.ChangePassword(ctx, f.app, common), access.CodeValidationFailed)
	if err := f.svc.ChangePassword(ctx, f.app, change); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		creds access.Credentials
		want  access.Code
	}{
		{"the session it was changed from", access.Credentials{Token: here}, ""},
		{"another session", access.Credentials{Token: elsewhere}, access.CodeInvalidCredentials},
		{"the old password, though it was cached", old, access.CodeInvalidCredentials},
		{"the new password", access.Credentials{Username: "paula", Password: "second-secret-88"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.Authenticate(ctx, f.app, tt.creds, true)
			if tt.want == "" && err != nil {
				t.Fatal(err)
			}
			if tt.want != "" {
				wantCode(t, err, tt.want)
			}
		})
	}
}

func TestResetPassword_GivesALicenseUserAPasswordAndEndsSessions(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	code := f.license(t, minutesGrant(60))
	u, err := f.svc.SignUpWithLicense(ctx, f.app, code, "")
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.svc.Login(ctx, f.app, access.LoginRequest{Credentials: access.Credentials{Code: code}})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, f.svc.ResetPassword(ctx, f.app.ID, u.ID, "short"), access.CodeValidationFailed)
	if err := f.svc.ResetPassword(ctx, f.app.ID, u.ID, "reset-by-admin-31"); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Authenticate(ctx, f.app, access.Credentials{Token: g.Token}, true)
	wantCode(t, err, access.CodeInvalidCredentials)
	if _, err := f.svc.Authenticate(ctx, f.app, access.Credentials{Username: u.Username, Password: "reset-by-admin-31"}, true); err != nil {
		t.Fatal(err)
	}
}

func TestLogin_PastTheSessionCapTheOldestSessionEnds(t *testing.T) {
	f := newFixture(t, access.AppSettings{MaxSessions: ptr(2)})
	ctx := context.Background()
	code := f.license(t, minutesGrant(60))
	if _, err := f.svc.SignUpWithLicense(ctx, f.app, code, ""); err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for range 3 {
		g, err := f.svc.Login(ctx, f.app, access.LoginRequest{Credentials: access.Credentials{Code: code}})
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, g.Token)
	}
	for i, want := range []access.Code{access.CodeInvalidCredentials, "", ""} {
		_, err := f.svc.Authenticate(ctx, f.app, access.Credentials{Token: tokens[i]}, true)
		if want == "" && err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		if want != "" {
			wantCode(t, err, want)
		}
	}
}

func mustUserID(t *testing.T, f *fixture, username string) string {
	t.Helper()
	acct, err := f.store.AccountByName(context.Background(), f.app.ID, access.UsernameKey(username))
	if err != nil {
		t.Fatal(err)
	}
	return acct.ID
}

// TestChangePassword_WithDeviceAuthTheDeviceIsCheckedAsForALogin: the
// owner's only device slot is taken; someone who knows the password but
// not the device cannot change it (which would end the owner's sessions
// and lock them out); the owner's device can.
func TestChangePassword_WithDeviceAuthTheDeviceIsCheckedAsForALogin(t *testing.T) {
	on := true
	f := newFixture(t, access.AppSettings{DeviceAuth: &on})
	ctx := context.Background()
	if _, err := f.svc.SignUp(ctx, f.app, access.SignUpRequest{Username: "owner", Password: "first-secret-77", HardwareID: "device-A"}); err != nil {
		t.Fatal(err)
	}
	change := access.PasswordChange{Username: "owner", OldPassword: "first-secret-77", NewPassword: "second-secret-88"}
	for _, tc := range []struct {
		hwid string
		want access.Code
	}{
		{"", access.CodeDeviceRequired},
		{"device-B", access.CodeDeviceMismatch},
	} {
		c := change
		c.HardwareID = tc.hwid
		wantCode(t, f.svc.ChangePassword(ctx, f.app, c), tc.want)
	}
	// The password is still the old one.
	if _, err := f.svc.Authenticate(ctx, f.app, access.Credentials{Username: "owner", Password: "first-secret-77", HardwareID: "device-A"}, false); err != nil {
		t.Fatalf("after refused changes the old password: %v", err)
	}
	c := change
	c.HardwareID = "device-A"
	if err := f.svc.ChangePassword(ctx, f.app, c); err != nil {
		t.Fatalf("the owner's device: %v", err)
	}
}
