package access

import (
	"context"
	"errors"

	"github.com/google/uuid"
)

// A license activation is one Redemption. A store with transactions writes
// it at once. A store without them (MongoDB) writes it in this order
// (RedeemInOrder), and each step can be finished by any later request that
// finds the one before it:
//
//  1. the license use: the unique key that consumes the code; it carries the
//     user, the grant and the activation ID;
//  2. the used mark on the license (for listings);
//  3. for a license sign-up, the account and then the user;
//  4. the ledger entry, whose ID is derived from the license, so that a
//     repeated write is counted once.
//
// A failure after step 1 therefore never loses the granted time (the next
// request that reads the use completes it), and never grants twice.

// SignUpWithLicense creates a user from an unused license code and activates
// the license. Of concurrent sign-ups with one code exactly one creates a user.
func (s *Service) SignUpWithLicense(ctx context.Context, app *App, code, hardwareID string) (*UserView, error) {
	var fields []FieldError
	if code == "" {
		fields = append(fields, FieldError{"code", "is required"})
	}
	if fe := validateSignUpDevice(app, hardwareID); fe != nil {
		fields = append(fields, *fe)
	}
	if len(fields) > 0 {
		return nil, Invalid(fields...)
	}
	addr := clientNetwork(ctx)
	signUp, err := s.throttle.reserveSignUp(app, addr)
	if err != nil {
		return nil, err
	}
	defer signUp.release()
	attempt := s.throttle.codeAttempt(app, addr)
	lic, err := s.licenseByCode(ctx, app, code, attempt)
	if err != nil {
		return nil, err
	}
	userID := uuid.NewString()
	use := &LicenseUse{
		LicenseID: lic.ID, AppID: app.ID, UserID: userID, Username: generatedUsername(userID),
		ActivationID: licenseActivationID(lic.ID), OccurredAt: s.Now(), SignUp: true,
	}
	signedUp := Event{Kind: EventUserSignedUp, AppID: app.ID, UserID: userID, Username: use.Username, LicenseID: lic.ID}
	if err := s.redeem(ctx, redemptionOf(use, lic.Grant), signedUp); err != nil {
		if CodeOf(err) == CodeLicenseUsed {
			return nil, attempt.refuse(ctx, err)
		}
		return nil, err
	}
	signUp.keep() // the user exists
	if err := s.checkDevice(ctx, app, userID, hardwareID); err != nil {
		return nil, err
	}
	// The new user's ledger holds exactly this activation.
	a := activationOf(use, lic.Grant)
	return &UserView{ID: userID, AppID: app.ID, Username: use.Username, Membership: MembershipOf([]Activation{a})}, nil
}

// ActivateRequest activates a license for an existing user.
type ActivateRequest struct {
	Code     string
	Username string
	Password string
}

// ActivateLicense adds a license to an existing user's membership.
func (s *Service) ActivateLicense(ctx context.Context, app *App, req ActivateRequest) (*Activation, error) {
	var fields []FieldError
	for _, f := range []struct{ name, v string }{{"code", req.Code}, {"username", req.Username}, {"password", req.Password}} {
		if f.v == "" {
			fields = append(fields, FieldError{f.name, "is required"})
		}
	}
	if len(fields) > 0 {
		return nil, Invalid(fields...)
	}
	st, err := s.passwordUser(ctx, app, req.Username, req.Password, "")
	if err != nil {
		return nil, err
	}
	if st.ban != nil {
		return nil, errUserBanned
	}
	attempt := s.throttle.codeAttempt(app, clientNetwork(ctx))
	lic, err := s.licenseByCode(ctx, app, req.Code, attempt)
	if err != nil {
		return nil, err
	}
	use := &LicenseUse{
		LicenseID: lic.ID, AppID: app.ID, UserID: st.user.ID, Username: st.user.Username,
		ActivationID: licenseActivationID(lic.ID), OccurredAt: s.Now(),
	}
	if err := s.redeem(ctx, redemptionOf(use, lic.Grant)); err != nil {
		if CodeOf(err) == CodeLicenseUsed {
			return nil, attempt.refuse(ctx, err)
		}
		return nil, err
	}
	a := activationOf(use, lic.Grant)
	return &a, nil
}

// licenseByCode finds the application's license with this code.
// An unknown code is the attempt's failure (see codeAttempt).
func (s *Service) licenseByCode(ctx context.Context, app *App, code string, attempt codeAttempt) (*License, error) {
	id := s.licenseID(app.ID, code)
	if id == "" {
		return nil, attempt.refuse(ctx, errLicenseInvalid)
	}
	lic, err := s.store.LicenseByID(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, attempt.refuse(ctx, errLicenseInvalid)
	}
	return lic, wrapStore(err, "reading license")
}

// redeem writes a redemption, whose events are the activation and then
// also (a sign-up's). If the license was already used, the earlier use is
// completed (it may have stopped half way) and the refusal is
// CodeLicenseUsed.
func (s *Service) redeem(ctx context.Context, r *Redemption, also ...Event) error {
	activated := Event{Kind: EventLicenseActivated, At: r.Use.OccurredAt, AppID: r.Use.AppID, UserID: r.Use.UserID,
		Username: r.Use.Username, LicenseID: r.Use.LicenseID, NewUser: r.NewUser != nil}
	err := s.commit(ctx, func(ctx context.Context) error { return s.store.RedeemLicense(ctx, r) }, append([]Event{activated}, also...)...)
	if err == nil {
		return nil
	}
	if !errors.Is(err, ErrDuplicate) {
		return wrapStore(err, "redeeming license")
	}
	if earlier, eg, rerr := s.store.LicenseUseByID(ctx, r.Use.LicenseID); rerr == nil {
		_ = s.completeUse(ctx, earlier, eg)
	}
	return errLicenseUsed
}

// completeUse makes sure every write that follows a license use happened,
// for a use an earlier request may have left half done (only possible on
// a store without transactions). The ledger entry is the last write, so
// when it is there everything is.
func (s *Service) completeUse(ctx context.Context, use *LicenseUse, g Grant) error {
	deleted, err := s.store.IsUserDeleted(ctx, use.UserID)
	if err != nil {
		return wrapStore(err, "checking user")
	}
	if deleted {
		return nil // nothing to finish for a user that was deleted on purpose
	}
	ledger, err := s.store.Ledger(ctx, use.UserID)
	if err != nil {
		return wrapStore(err, "reading ledger")
	}
	for _, a := range ledger {
		if a.ID == use.ActivationID {
			return nil
		}
	}
	// A repair racing the request it repairs may append the entry twice;
	// it counts once.
	return s.commit(ctx, func(ctx context.Context) error {
		return wrapStore(finishRedemption(ctx, s.store, redemptionOf(use, g)), "completing license use")
	}, Event{Kind: EventLicenseActivated, At: use.OccurredAt, AppID: use.AppID, UserID: use.UserID, Username: use.Username,
		LicenseID: use.LicenseID})
}

func activationOf(use *LicenseUse, g Grant) Activation {
	return Activation{
		ID: use.ActivationID, AppID: use.AppID, UserID: use.UserID, Type: ActivationLicense,
		LicenseID: use.LicenseID, OccurredAt: use.OccurredAt, Minutes: g.Minutes,
		GrantsLifetimeAccess: g.GrantsLifetimeAccess, RevokesLifetimeAccess: g.RevokesLifetimeAccess,
	}
}
