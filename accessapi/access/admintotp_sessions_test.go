package access_test

import (
	"context"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// TestTOTPChanges_EndTheAdministratorsSessions: a session opened under the
// old second factor (the password alone before an enrolment, or the codes
// of a secret being replaced or removed) does not outlive it.
func TestTOTPChanges_EndTheAdministratorsSessions(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		before func(e *totpEnv, t *testing.T) string // the code a sign-in needs, "" for none
		change func(e *totpEnv, t *testing.T)
	}{
		{"enrolling ends the sessions the password alone opened",
			func(*totpEnv, *testing.T) string { return "" },
			func(e *totpEnv, t *testing.T) { e.enrol(t) }},
		{"replacing the secret ends the sessions its codes opened",
			func(e *totpEnv, t *testing.T) string { return e.code(t, e.enrol(t)) },
			func(e *totpEnv, t *testing.T) { e.enrol(t) }},
		{"disabling ends the sessions",
			func(e *totpEnv, t *testing.T) string { return e.code(t, e.enrol(t)) },
			func(e *totpEnv, t *testing.T) {
				if err := e.svc.DisableTOTP(ctx, totpAdmin); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTOTPEnv(t, nil)
			token, _, err := e.svc.SignInAdmin(ctx, totpAdmin, totpPassword, tt.before(e, t))
			if err != nil {
				t.Fatal(err)
			}
			tt.change(e, t)
			_, err = e.svc.AdminSessionOf(ctx, token)
			wantCode(t, err, access.CodeAuthenticationRequired)
		})
	}
}

// TestConfirmTOTP_ASignInRacingTheEnrolmentKeepsNoPasswordOnlySession:
// whoever has the password and keeps signing in while the administrator
// enrols TOTP is left with no session: a sign-in that checked the password
// alone and stored its session after the enrolment ended the others reads
// the account again and gives its session up.
func TestConfirmTOTP_ASignInRacingTheEnrolmentKeepsNoPasswordOnlySession(t *testing.T) {
	ctx := context.Background()
	params := access.Argon2Params{MemoryKiB: 8 << 10, Iterations: 1, Parallelism: 1}
	for round := 0; round < 5; round++ {
		svc := access.NewService(storetest.Default(t), access.Config{Argon2: params})
		if _, err := svc.CreateAdmin(ctx, totpAdmin, totpPassword); err != nil {
			t.Fatal(err)
		}
		signIns := signInWhile(svc, totpAdmin, totpPassword)
		time.Sleep(30 * time.Millisecond)
		en, err := svc.BeginTOTP(ctx, totpAdmin)
		if err != nil {
			t.Fatal(err)
		}
		code, err := totp.GenerateCode(en.Secret, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.ConfirmTOTP(ctx, totpAdmin, code); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond)
		tokens := signIns()
		for _, tok := range tokens {
			if sess, err := svc.AdminSessionOf(ctx, tok); err == nil {
				t.Fatalf("round %d: a session opened with the password alone outlived the enrolment: %+v (%d sign-ins)", round, sess, len(tokens))
			}
		}
	}
}
