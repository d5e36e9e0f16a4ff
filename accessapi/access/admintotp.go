package access

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// TOTP parameters: RFC 6238 defaults, which every authenticator app reads.
const (
	totpPeriod = 30
	totpSkew   = 1 // one step either side, for clock drift
	totpIssuer = "App Access"
)

// TOTPEnrolment is a new, pending TOTP secret: shown once to the
// administrator, who confirms it with a code.
type TOTPEnrolment struct {
	Secret string
	URL    string
}

// BeginTOTP gives an administrator a new pending TOTP secret (160 random
// bits), stored sealed; it replaces any other pending one and takes effect
// once confirmed. An enabled secret stays in force until then: sign-in
// still needs its codes, so beginning an enrolment never lowers the bar.
func (s *Service) BeginTOTP(ctx context.Context, username string) (*TOTPEnrolment, error) {
	a, err := s.AdminNamed(ctx, username)
	if err != nil {
		return nil, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: a.Username, Period: totpPeriod})
	if err != nil {
		return nil, fmt.Errorf("generating TOTP secret: %w", err)
	}
	if a.PendingTOTPSecret, err = sealTOTPSecret(s.totpKey, a.Username, key.Secret()); err != nil {
		return nil, err
	}
	if err := s.sealCurrentTOTP(a); err != nil {
		return nil, err
	}
	if err := s.store.SetAdminTOTP(ctx, a); err != nil {
		return nil, wrapStore(err, "storing TOTP secret")
	}
	return &TOTPEnrolment{Secret: key.Secret(), URL: key.URL()}, nil
}

// ConfirmTOTP makes the pending TOTP secret the enabled one once code
// matches it; until then the enabled secret, if any, stays in force. The
// code's step is recorded, so it cannot also serve as a sign-in code. The
// administrator's dashboard sessions end: they were opened without it.
func (s *Service) ConfirmTOTP(ctx context.Context, username, code string) error {
	a, err := s.AdminNamed(ctx, username)
	if err != nil {
		return err
	}
	if a.PendingTOTPSecret == "" {
		return Refusal(CodeConflict, "Begin a TOTP enrolment first.")
	}
	pending, err := openTOTPSecret(s.totpKey, a.Username, a.PendingTOTPSecret)
	if err != nil {
		return err
	}
	ok, err := s.useTOTP(ctx, a.Username, pending, code)
	if err != nil {
		return err
	}
	if !ok {
		return Invalid(FieldError{"code", "does not match the secret"})
	}
	if !totpSealed(a.PendingTOTPSecret) { // begun before secrets were sealed
		if a.PendingTOTPSecret, err = sealTOTPSecret(s.totpKey, a.Username, pending); err != nil {
			return err
		}
	}
	a.TOTPSecret, a.PendingTOTPSecret, a.TOTPEnabled = a.PendingTOTPSecret, "", true
	return wrapStore(s.commit(ctx, func(ctx context.Context) error { return s.replaceAdminFactors(ctx, a) },
		Event{Kind: EventAdminTOTPEnabled, Target: a.Username}), "enabling TOTP")
}

// replaceAdminFactors stores a's changed second factor and then ends a's
// dashboard sessions: one opened under the old factor (the password alone,
// or a secret being replaced because it leaked) does not outlive it
// (SetAdminPassword does the same after a password). The
// order matters: a sign-in that stores its session after the sessions are
// ended reads the account again and finds the new factor
// (sessionStillAllowed).
func (s *Service) replaceAdminFactors(ctx context.Context, a *Admin) error {
	if err := s.store.SetAdminTOTP(ctx, a); err != nil {
		return err
	}
	return s.store.DeleteAdminSessions(ctx, a.Username)
}

// DisableTOTP removes an administrator's TOTP secrets, the enabled one and
// any pending one, and ends the administrator's dashboard sessions.
func (s *Service) DisableTOTP(ctx context.Context, username string) error {
	a, err := s.AdminNamed(ctx, username)
	if err != nil {
		return err
	}
	a.TOTPSecret, a.PendingTOTPSecret, a.TOTPEnabled = "", "", false
	return wrapStore(s.commit(ctx, func(ctx context.Context) error { return s.replaceAdminFactors(ctx, a) },
		Event{Kind: EventAdminTOTPDisabled, Target: a.Username}), "disabling TOTP")
}

// checkTOTP reports whether code is valid for a's enabled secret at a step
// not accepted before, and records that step. A secret stored in the clear
// (written before secrets were sealed) is sealed once a code is accepted.
// A secret that cannot be opened is a *SignInFault.
func (s *Service) checkTOTP(ctx context.Context, a *Admin, code string) (bool, error) {
	secret, err := openTOTPSecret(s.totpKey, a.Username, a.TOTPSecret)
	if err != nil {
		return false, &SignInFault{Username: a.Username, Cause: err}
	}
	ok, err := s.useTOTP(ctx, a.Username, secret, code)
	if !ok || err != nil || totpSealed(a.TOTPSecret) {
		return ok, err
	}
	if err := s.sealCurrentTOTP(a); err != nil {
		return false, err
	}
	// Best effort: a failed write leaves the secret in the clear, to be
	// sealed at the next sign-in.
	_ = s.store.SetAdminTOTP(ctx, a)
	return true, nil
}

// sealCurrentTOTP seals a's enabled secret if it is stored in the clear.
func (s *Service) sealCurrentTOTP(a *Admin) error {
	if totpSealed(a.TOTPSecret) {
		return nil
	}
	sealed, err := sealTOTPSecret(s.totpKey, a.Username, a.TOTPSecret)
	if err != nil {
		return err
	}
	a.TOTPSecret = sealed
	return nil
}

// useTOTP reports whether code is valid for secret (base32) at a step not
// accepted before for the administrator, and records that step.
func (s *Service) useTOTP(ctx context.Context, username, secret, code string) (bool, error) {
	step, ok := totpStep(secret, code, s.Now())
	if !ok {
		return false, nil
	}
	err := s.store.InsertTOTPStep(ctx, username, step, s.Now())
	if errors.Is(err, ErrDuplicate) {
		return false, nil
	}
	return err == nil, wrapStore(err, "recording TOTP step")
}

// totpStep finds the time step, within the skew, whose code is code.
// pquerna/otp's validators return only a bool, and replay protection needs
// the step.
func totpStep(secret, code string, now time.Time) (int64, bool) {
	if secret == "" || len(code) != 6 {
		return 0, false
	}
	base := now.Unix() / totpPeriod
	found, step := 0, int64(0)
	for d := int64(-totpSkew); d <= totpSkew; d++ {
		at := time.Unix((base+d)*totpPeriod, 0)
		want, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && found == 0 {
			found, step = 1, base+d
		}
	}
	return step, found == 1
}

// sessionStillAllowed reports whether the sign-in that checked a's
// factors may keep the session it has just stored: the administrator
// still exists, and the password and TOTP requirement read back are the
// ones checked. A password or TOTP change (or a deletion) stores the
// account before ending its sessions, so a sign-in whose session was
// stored too late to be ended sees the change here.
func (s *Service) sessionStillAllowed(ctx context.Context, a *Admin) (bool, error) {
	now, err := s.store.AdminByName(ctx, a.Username)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, wrapStore(err, "reading administrator")
	}
	if now.TOTPEnabled != a.TOTPEnabled || subtle.ConstantTimeCompare([]byte(now.PasswordHash), []byte(a.PasswordHash)) != 1 {
		return false, nil
	}
	if !a.TOTPEnabled {
		return true, nil
	}
	// Compared opened: sealing a secret stored in the clear changes the
	// stored form, not the secret.
	was, err := openTOTPSecret(s.totpKey, a.Username, a.TOTPSecret)
	if err != nil {
		return false, err
	}
	is, err := openTOTPSecret(s.totpKey, now.Username, now.TOTPSecret)
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare([]byte(was), []byte(is)) == 1, nil
}
