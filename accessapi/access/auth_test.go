package access_test

import (
	"context"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
)

func TestLicenseCode_IsACredentialOnlyForTheAccountItCreated(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	if _, err := f.svc.SignUp(ctx, f.app, access.SignUpRequest{Username: "alice", Password: "vortex-lamp-71"}); err != nil {
		t.Fatal(err)
	}
	activated := f.license(t, minutesGrant(600))
	if _, err := f.svc.ActivateLicense(ctx, f.app, access.ActivateRequest{Code: activated, Username: "alice", Password: "vortex-lamp-71"}); err != nil {
		t.Fatal(err)
	}
	signedUp := f.license(t, minutesGrant(600))
	if _, err := f.svc.SignUpWithLicense(ctx, f.app, signedUp, ""); err != nil {
		t.Fatal(err)
	}
	unknown := access.NewLicenseCode()

	tests := []struct {
		name string
		code string
		want access.Code // "" for success
	}{
		{"a code that created its account logs it in", signedUp, ""},
		{"a code activated by a password account is no way into it", activated, access.CodeInvalidCredentials},
		{"an unknown code is refused the same way", unknown, access.CodeInvalidCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Twice each: the second answer comes from the caches.
			for range 2 {
				_, err := f.svc.Login(ctx, f.app, access.LoginRequest{Credentials: access.Credentials{Code: tt.code}})
				if tt.want == "" && err != nil {
					t.Fatalf("login: %v", err)
				}
				if tt.want != "" {
					wantCode(t, err, tt.want)
				}
				_, err = f.svc.Authenticate(ctx, f.app, access.Credentials{Code: tt.code}, true)
				if tt.want == "" && err != nil {
					t.Fatalf("license header: %v", err)
				}
				if tt.want != "" {
					wantCode(t, err, tt.want)
				}
			}
		})
	}
}

func TestSessionToken_IsHeldToTheDeviceItWasOpenedOn(t *testing.T) {
	f := newFixture(t, access.AppSettings{DeviceAuth: ptr(true), MaxDevices: ptr(3)})
	ctx := context.Background()
	code := f.license(t, minutesGrant(600))
	if _, err := f.svc.SignUpWithLicense(ctx, f.app, code, "HW-AAA"); err != nil {
		t.Fatal(err)
	}
	login := func(t *testing.T, hw string) string {
		t.Helper()
		g, err := f.svc.Login(ctx, f.app, access.LoginRequest{Credentials: access.Credentials{Code: code, HardwareID: hw}})
		if err != nil {
			t.Fatal(err)
		}
		return g.Token
	}
	strict := *f.app
	strict.TokenRequiresHardwareID = true

	tests := []struct {
		name       string
		app        *access.App
		hardwareID string
		want       access.Code
	}{
		{"the same device", f.app, "HW-AAA", ""},
		{"another device, even one with a free slot", f.app, "HW-ZZZ", access.CodeDeviceMismatch},
		{"no hardware id, by default", f.app, "", ""},
		{"no hardware id when the app requires it", &strict, "", access.CodeDeviceRequired},
		{"the same device when the app requires it", &strict, "HW-AAA", ""},
		{"another device when the app requires it", &strict, "HW-ZZZ", access.CodeDeviceMismatch},
	}
	token := login(t, "HW-AAA")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.Authenticate(ctx, tt.app, access.Credentials{Token: token, HardwareID: tt.hardwareID}, true)
			if tt.want == "" && err != nil {
				t.Fatal(err)
			}
			if tt.want != "" {
				wantCode(t, err, tt.want)
			}
		})
	}

	t.Run("a device reset ends the sessions bound to the devices", func(t *testing.T) {
		token := login(t, "HW-AAA")
		u, err := f.svc.Authenticate(ctx, f.app, access.Credentials{Token: token, HardwareID: "HW-AAA"}, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.svc.ResetDevices(ctx, f.app.ID, u.ID); err != nil {
			t.Fatal(err)
		}
		_, err = f.svc.Authenticate(ctx, f.app, access.Credentials{Token: token, HardwareID: "HW-AAA"}, true)
		wantCode(t, err, access.CodeInvalidCredentials)
		// A fresh service (another instance, cold caches) agrees.
		_, err = newService(f.store).Authenticate(ctx, f.app, access.Credentials{Token: token, HardwareID: "HW-AAA"}, true)
		wantCode(t, err, access.CodeInvalidCredentials)
	})

	t.Run("a session opened before device authentication was on names no device", func(t *testing.T) {
		loose := *f.app
		loose.DeviceAuth = false
		g, err := f.svc.Login(ctx, &loose, access.LoginRequest{Credentials: access.Credentials{Code: code}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.svc.Authenticate(ctx, f.app, access.Credentials{Token: g.Token, HardwareID: "HW-AAA"}, true)
		wantCode(t, err, access.CodeDeviceRequired)
	})
}
