package access

import (
	"context"
	"crypto/subtle"
	"errors"
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
// bits); it replaces any other and takes effect once confirmed.
func (s *Service) BeginTOTP(ctx context.Context, username string) (*TOTPEnrolment, error) {
	a, err := s.AdminNamed(ctx, username)
	if err != nil {
		return nil, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: a.Username, Period: totpPeriod})
	if err != nil {
		return nil, err
	}
	a.TOTPSecret, a.TOTPEnabled = key.Secret(), false
	if err := s.store.ReplaceAdmin(ctx, a); err != nil {
		return nil, wrapStore(err, "storing TOTP secret")
	}
	return &TOTPEnrolment{Secret: key.Secret(), URL: key.URL()}, nil
}

// ConfirmTOTP enables a pending TOTP secret once code matches it. The
// code's step is recorded, so it cannot also serve as a sign-in code.
func (s *Service) ConfirmTOTP(ctx context.Context, username, code string) error {
	a, err := s.AdminNamed(ctx, username)
	if err != nil {
		return err
	}
	if a.TOTPSecret == "" {
		return Refusal(CodeConflict, "Begin a TOTP enrolment first.")
	}
	ok, err := s.useTOTP(ctx, a, code)
	if err != nil {
		return err
	}
	if !ok {
		return Invalid(FieldError{"code", "does not match the secret"})
	}
	a.TOTPEnabled = true
	return wrapStore(s.store.ReplaceAdmin(ctx, a), "enabling TOTP")
}

// DisableTOTP removes an administrator's TOTP secret.
func (s *Service) DisableTOTP(ctx context.Context, username string) error {
	a, err := s.AdminNamed(ctx, username)
	if err != nil {
		return err
	}
	a.TOTPSecret, a.TOTPEnabled = "", false
	return wrapStore(s.store.ReplaceAdmin(ctx, a), "disabling TOTP")
}

// useTOTP reports whether code is valid for a's secret at a step not
// accepted before, and records that step.
func (s *Service) useTOTP(ctx context.Context, a *Admin, code string) (bool, error) {
	step, ok := totpStep(a.TOTPSecret, code, s.Now())
	if !ok {
		return false, nil
	}
	err := s.store.InsertTOTPStep(ctx, a.Username, step, s.Now())
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
