package access_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

const (
	totpAdmin    = "alice"
	totpPassword = "correct horse battery"
)

// totpEnv is a service with one administrator, on a store the test reads.
type totpEnv struct {
	store access.Store
	svc   *access.Service
	clock *clock
}

func newTOTPEnv(t *testing.T, fileKey []byte) *totpEnv {
	t.Helper()
	e := &totpEnv{store: storetest.Default(t), clock: &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}}
	e.svc = access.NewService(e.store, access.Config{Argon2: cheapArgon2, Now: e.clock.Now, FileKey: fileKey})
	if _, err := e.svc.CreateAdmin(context.Background(), totpAdmin, totpPassword); err != nil {
		t.Fatal(err)
	}
	return e
}

// code is secret's code at the next step: each call moves the clock on by
// one, since a step's code is accepted once.
func (e *totpEnv) code(t *testing.T, secret string) string {
	t.Helper()
	e.clock.advance(30 * time.Second)
	c, err := totp.GenerateCode(secret, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enrol begins and confirms an enrolment, and returns its secret.
func (e *totpEnv) enrol(t *testing.T) string {
	t.Helper()
	en, err := e.svc.BeginTOTP(context.Background(), totpAdmin)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.ConfirmTOTP(context.Background(), totpAdmin, e.code(t, en.Secret)); err != nil {
		t.Fatal(err)
	}
	return en.Secret
}

// signsIn reports whether the password with code signs in.
func (e *totpEnv) signsIn(t *testing.T, code string) bool {
	t.Helper()
	_, _, err := e.svc.SignInAdmin(context.Background(), totpAdmin, totpPassword, code)
	if err != nil && access.CodeOf(err) != access.CodeInvalidCredentials {
		t.Fatalf("sign-in: %v", err)
	}
	return err == nil
}

func TestBeginTOTP_EnabledSecretStaysInForceUntilTheNewOneIsConfirmed(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// then acts after a second enrolment is begun.
		then func(t *testing.T, e *totpEnv, newSecret string)
		// What signs in afterwards.
		passwordAlone, oldSecret, newSecret bool
	}{
		{
			name:      "NotConfirmed",
			then:      func(*testing.T, *totpEnv, string) {},
			oldSecret: true,
		},
		{
			name: "ConfirmedWithAWrongCode",
			then: func(t *testing.T, e *totpEnv, _ string) {
				old, _ := e.store.AdminByName(ctx, totpAdmin)
				err := e.svc.ConfirmTOTP(ctx, totpAdmin, "000000")
				wantCode(t, err, access.CodeValidationFailed)
				if now, _ := e.store.AdminByName(ctx, totpAdmin); now.TOTPSecret != old.TOTPSecret || !now.TOTPEnabled {
					t.Fatal("a refused confirmation changed the enabled secret")
				}
			},
			oldSecret: true,
		},
		{
			name: "Confirmed",
			then: func(t *testing.T, e *totpEnv, newSecret string) {
				if err := e.svc.ConfirmTOTP(ctx, totpAdmin, e.code(t, newSecret)); err != nil {
					t.Fatal(err)
				}
				err := e.svc.ConfirmTOTP(ctx, totpAdmin, e.code(t, newSecret))
				wantCode(t, err, access.CodeConflict) // nothing is pending any more
			},
			newSecret: true,
		},
		{
			name: "DisabledInstead",
			then: func(t *testing.T, e *totpEnv, newSecret string) {
				if err := e.svc.DisableTOTP(ctx, totpAdmin); err != nil {
					t.Fatal(err)
				}
				err := e.svc.ConfirmTOTP(ctx, totpAdmin, e.code(t, newSecret))
				wantCode(t, err, access.CodeConflict) // the pending secret went too
			},
			passwordAlone: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newTOTPEnv(t, nil)
			oldSecret := e.enrol(t)
			en, err := e.svc.BeginTOTP(ctx, totpAdmin)
			if err != nil {
				t.Fatal(err)
			}
			tc.then(t, e, en.Secret)
			if got := e.signsIn(t, ""); got != tc.passwordAlone {
				t.Errorf("the password alone signs in: %v, want %v", got, tc.passwordAlone)
			}
			if tc.passwordAlone {
				return // any code goes with the password alone
			}
			if got := e.signsIn(t, e.code(t, oldSecret)); got != tc.oldSecret {
				t.Errorf("the old secret's code signs in: %v, want %v", got, tc.oldSecret)
			}
			if got := e.signsIn(t, e.code(t, en.Secret)); got != tc.newSecret {
				t.Errorf("the new secret's code signs in: %v, want %v", got, tc.newSecret)
			}
		})
	}
}

func TestTOTPSecrets_AreStoredSealedUnderTheFileKey(t *testing.T) {
	ctx := context.Background()
	fileKey := bytes.Repeat([]byte{7}, access.FileKeySize)
	e := newTOTPEnv(t, fileKey)
	first := e.enrol(t)
	en, err := e.svc.BeginTOTP(ctx, totpAdmin)
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.store.AdminByName(ctx, totpAdmin)
	if err != nil {
		t.Fatal(err)
	}
	for _, stored := range []string{a.TOTPSecret, a.PendingTOTPSecret} {
		if stored == "" || strings.Contains(stored, first) || strings.Contains(stored, en.Secret) {
			t.Fatalf("stored secret %q: empty or in the clear", stored)
		}
	}
	// Another file key cannot open it: sign-in fails, and not as a
	// password-only one would.
	other := access.NewService(e.store, access.Config{Argon2: cheapArgon2, Now: e.clock.Now, FileKey: bytes.Repeat([]byte{8}, access.FileKeySize)})
	if _, _, err := other.SignInAdmin(ctx, totpAdmin, totpPassword, e.code(t, first)); err == nil {
		t.Fatal("signed in with a secret sealed under another file key")
	}
	if !e.signsIn(t, e.code(t, first)) {
		t.Fatal("the enabled secret does not sign in")
	}
}

func TestTOTPSecrets_StoredInTheClearStillSignInAndAreSealedThen(t *testing.T) {
	ctx := context.Background()
	e := newTOTPEnv(t, bytes.Repeat([]byte{7}, access.FileKeySize))
	// As written before secrets were sealed.
	const secret = "JBSWY3DPEHPK3PXP"
	a, err := e.store.AdminByName(ctx, totpAdmin)
	if err != nil {
		t.Fatal(err)
	}
	a.TOTPSecret, a.TOTPEnabled = secret, true
	if err := e.store.SetAdminTOTP(ctx, a); err != nil {
		t.Fatal(err)
	}
	if e.signsIn(t, "") {
		t.Fatal("the password alone signs in")
	}
	if !e.signsIn(t, e.code(t, secret)) {
		t.Fatal("a secret stored in the clear does not sign in")
	}
	if a, _ = e.store.AdminByName(ctx, totpAdmin); a.TOTPSecret == secret || !a.TOTPEnabled {
		t.Fatalf("after the sign-in the secret is stored as %q (enabled %v), want it sealed", a.TOTPSecret, a.TOTPEnabled)
	}
	if !e.signsIn(t, e.code(t, secret)) {
		t.Fatal("the sealed secret does not sign in")
	}
}
