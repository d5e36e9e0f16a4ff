package access_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

func newAdminService(t *testing.T) (*access.Service, *clock) {
	t.Helper()
	c := &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	return access.NewService(storetest.Default(t), access.Config{Argon2: cheapArgon2, Now: c.Now}), c
}

func TestSignInAdmin_TOTPCodeWorksOnceAndNotAfterEnrolment(t *testing.T) {
	ctx := context.Background()
	svc, c := newAdminService(t)
	if _, err := svc.CreateAdmin(ctx, "Alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	en, err := svc.BeginTOTP(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	code, _ := totp.GenerateCode(en.Secret, c.Now())
	if err := svc.ConfirmTOTP(ctx, "alice", code); err != nil {
		t.Fatal(err)
	}
	// The enrolment's code is spent: it cannot sign in.
	_, _, err = svc.SignInAdmin(ctx, "alice", "correct horse battery", code)
	wantCode(t, err, access.CodeInvalidCredentials)
	c.advance(30 * time.Second)
	next, _ := totp.GenerateCode(en.Secret, c.Now())
	_, _, err = svc.SignInAdmin(ctx, "alice", "correct horse battery", "")
	wantCode(t, err, access.CodeInvalidCredentials)
	token, sess, err := svc.SignInAdmin(ctx, "alice", "correct horse battery", next)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Username != "alice" || sess.TokenHash == token {
		t.Fatalf("session %+v", sess)
	}
	// A replay of the same code within its window is refused.
	_, _, err = svc.SignInAdmin(ctx, "alice", "correct horse battery", next)
	wantCode(t, err, access.CodeInvalidCredentials)
	if _, err := svc.AdminSessionOf(ctx, token); err != nil {
		t.Fatal(err)
	}
	if err := svc.SignOutAdmin(ctx, token); err != nil {
		t.Fatal(err)
	}
	_, err = svc.AdminSessionOf(ctx, token)
	wantCode(t, err, access.CodeAuthenticationRequired)
}

func TestSignInAdmin_RepeatedFailuresAreThrottled(t *testing.T) {
	ctx := access.WithClientAddress(context.Background(), "203.0.113.9")
	svc, _ := newAdminService(t)
	if _, err := svc.CreateAdmin(ctx, "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	var err error
	for range access.DefaultThrottlePolicy.AccountAddressFree + 1 {
		if _, _, err = svc.SignInAdmin(ctx, "alice", "wrong password!!", ""); access.CodeOf(err) == access.CodeTooManyAttempts {
			break
		}
	}
	wantCode(t, err, access.CodeTooManyAttempts)
}

func TestSellerKey_RevokedKeyIsRefusedAtOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, access.AppSettings{})
	k, err := f.svc.CreateSellerKey(ctx, f.app.ID, "shop", []string{access.ScopeLicensesCreate})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.AuthenticateSellerKey(ctx, k.Secret)
	if err != nil || got.ID != k.ID || got.LastUsedAt.IsZero() {
		t.Fatalf("key %+v, %v", got, err)
	}
	if err := f.svc.RevokeSellerKey(ctx, f.app.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.AuthenticateSellerKey(ctx, k.Secret)
	wantCode(t, err, access.CodeAuthenticationRequired)
}

func TestCreateSellerKey_UnknownScopeIsInvalid(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	_, err := f.svc.CreateSellerKey(context.Background(), f.app.ID, "shop", []string{"everything"})
	wantCode(t, err, access.CodeValidationFailed)
}

func TestSellerKey_OfADeletedAppIsRefusedAndRevocable(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// orphan leaves a key whose application is gone, and returns it.
		orphan func(t *testing.T, f *fixture) *access.NewSellerKey
		// revoked is whether the key is still there to revoke.
		revoked bool
	}{
		{
			name: "DeleteAppTakesTheKeyWithIt",
			orphan: func(t *testing.T, f *fixture) *access.NewSellerKey {
				k, err := f.svc.CreateSellerKey(ctx, f.app.ID, "shop", []string{access.ScopeAuditRead})
				if err != nil {
					t.Fatal(err)
				}
				if err := f.svc.DeleteApp(ctx, f.app.ID); err != nil {
					t.Fatal(err)
				}
				if _, err := f.store.SellerKeyByHash(ctx, access.SecretHash(k.Secret)); !errors.Is(err, access.ErrNotFound) {
					t.Fatalf("the key of the deleted application: %v, want ErrNotFound", err)
				}
				return k
			},
		},
		{
			// A key left behind (by a deletion cut short, or by one made
			// before deletions took the keys) fails and can be revoked.
			name: "KeyLeftBehindIsRefusedAndRevocable",
			orphan: func(t *testing.T, f *fixture) *access.NewSellerKey {
				k := &access.NewSellerKey{Secret: "sk_left_behind",
					SellerKey: access.SellerKey{ID: "k-left", AppID: "gone", Name: "shop", Scopes: []string{access.ScopeAuditRead},
						SecretHash: access.SecretHash("sk_left_behind"), CreatedAt: f.svc.Now()}}
				if err := f.store.InsertSellerKey(ctx, &k.SellerKey); err != nil {
					t.Fatal(err)
				}
				return k
			},
			revoked: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, access.AppSettings{})
			k := tc.orphan(t, f)
			_, err := f.svc.AuthenticateSellerKey(ctx, k.Secret)
			wantCode(t, err, access.CodeAuthenticationRequired)
			err = f.svc.RevokeSellerKey(ctx, k.AppID, k.ID)
			if !tc.revoked {
				wantCode(t, err, access.CodeNotFound)
				return
			}
			if err != nil {
				t.Fatalf("revoking the key of a deleted application: %v", err)
			}
			if _, err := f.store.SellerKeyByHash(ctx, k.SecretHash); !errors.Is(err, access.ErrNotFound) {
				t.Fatalf("the revoked key: %v, want ErrNotFound", err)
			}
		})
	}
}

// TestCreateAdmin_RefusesCommonAndShortPasswordsAndTheUsername: the
// dashboard is on the public site; an administrator's password follows
// users' rules at 12 characters (308 of the common passwords have 12 or
// more).
func TestCreateAdmin_RefusesCommonAndShortPasswordsAndTheUsername(t *testing.T) {
	ctx := context.Background()
	svc, _ := newAdminService(t)
	for _, tt := range []struct {
		name, username, password string
		ok                       bool
	}{
		{"a common password of 16 characters", "ann", "passwordpassword", false},
		{"a common password of 12 characters", "ben", "qwertyasdfgh", false},
		{"the common one in another case", "cat", "PasswordPassword", false},
		{"eleven characters", "dan", "kq7-vortexl", false},
		{"twelve bytes but four characters", "eve", "日本語語", false},
		{"the username inside", "margaret", "margaret-vortex-71", false},
		{"an unusual phrase", "alice", "correct horse battery", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.CreateAdmin(ctx, tt.username, tt.password)
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, access.CodeValidationFailed)
			var e *access.Error
			if !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Field != "password" {
				t.Fatalf("error %v, want one on the password", err)
			}
		})
	}
}

// TestSetAdminPassword_TheNewOneSignsInTheOldOneAndItsSessionsEnd: the
// operator's reset of an administrator's password follows creation's
// rules, ends the sessions opened with the old one, and keeps the TOTP
// enrolment.
func TestSetAdminPassword_TheNewOneSignsInTheOldOneAndItsSessionsEnd(t *testing.T) {
	ctx := context.Background()
	svc, c := newAdminService(t)
	if _, err := svc.CreateAdmin(ctx, "bobby", "forgotten horse battery"); err != nil {
		t.Fatal(err)
	}
	en, err := svc.BeginTOTP(ctx, "bobby")
	if err != nil {
		t.Fatal(err)
	}
	code, _ := totp.GenerateCode(en.Secret, c.Now())
	if err := svc.ConfirmTOTP(ctx, "bobby", code); err != nil {
		t.Fatal(err)
	}
	signIn := func(password string) (string, error) {
		c.advance(30 * time.Second)
		code, _ := totp.GenerateCode(en.Secret, c.Now())
		token, _, err := svc.SignInAdmin(ctx, "bobby", password, code)
		return token, err
	}
	before, err := signIn("forgotten horse battery")
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, username, password string
		want                     access.Code
	}{
		{"no such administrator", "nobody", "a fresh horse battery", access.CodeNotFound},
		{"too short", "bobby", "short one", access.CodeValidationFailed},
		{"a common password", "bobby", "password1234", access.CodeValidationFailed},
		{"the username in it", "bobby", "big-bobby-tables", access.CodeValidationFailed},
	} {
		wantCode(t, svc.SetAdminPassword(ctx, tc.username, tc.password), tc.want)
	}
	if _, err := svc.AdminSessionOf(ctx, before); err != nil {
		t.Fatalf("a refused reset ended the session: %v", err)
	}

	if err := svc.SetAdminPassword(ctx, "Bobby", "a fresh horse battery"); err != nil {
		t.Fatal(err)
	}
	_, err = svc.AdminSessionOf(ctx, before)
	wantCode(t, err, access.CodeAuthenticationRequired)
	_, err = signIn("forgotten horse battery")
	wantCode(t, err, access.CodeInvalidCredentials)
	after, err := signIn("a fresh horse battery")
	if err != nil {
		t.Fatalf("the new password with the same authenticator: %v", err)
	}
	if _, err := svc.AdminSessionOf(ctx, after); err != nil {
		t.Fatal(err)
	}
	if a, err := svc.AdminNamed(ctx, "bobby"); err != nil || !a.TOTPEnabled {
		t.Fatalf("after the reset: %+v, %v; want TOTP still enabled", a, err)
	}
}

// TestSignInAdmin_AHashUnderOldParametersIsUpgradedAndTheSessionKept: an
// administrator's hash made with less memory is rehashed at their next
// sign-in, whose session works; the password keeps signing in.
func TestSignInAdmin_AHashUnderOldParametersIsUpgradedAndTheSessionKept(t *testing.T) {
	ctx := context.Background()
	store := storetest.Default(t)
	before := access.NewService(store, access.Config{Argon2: cheapArgon2})
	if _, err := before.CreateAdmin(ctx, "olive", "an old horse battery"); err != nil {
		t.Fatal(err)
	}
	old, err := store.AdminByName(ctx, "olive")
	if err != nil {
		t.Fatal(err)
	}
	after := access.NewService(store, access.Config{Argon2: access.Argon2Params{MemoryKiB: 2 * cheapArgon2.MemoryKiB, Iterations: 1, Parallelism: 1}})
	token, _, err := after.SignInAdmin(ctx, "olive", "an old horse battery", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := after.AdminSessionOf(ctx, token); err != nil {
		t.Fatalf("the session of the sign-in that rehashed: %v", err)
	}
	now, err := store.AdminByName(ctx, "olive")
	if err != nil {
		t.Fatal(err)
	}
	if now.PasswordHash == old.PasswordHash || !strings.Contains(now.PasswordHash, "$m=128,t=1,p=1$") {
		t.Fatalf("after a sign-in under raised parameters the hash is %q", now.PasswordHash)
	}
	if _, _, err := after.SignInAdmin(ctx, "olive", "an old horse battery", ""); err != nil {
		t.Fatalf("signing in again: %v", err)
	}
}
