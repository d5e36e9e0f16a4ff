package access

import (
	"context"
	"errors"

	"github.com/google/uuid"
)

// A license activation is written in this order, and each step can be
// finished by any later request that finds the one before it:
//
//  1. the license use: the unique key that consumes the code; it carries the
//     user, the grant and the activation ID;
//  2. for a license sign-up, the account and then the user;
//  3. the ledger entry, whose ID is derived from the license, so that a
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
	if err := s.throttle.checkSignUp(app, addr); err != nil {
		return nil, err
	}
	if err := s.throttle.checkCode(app, addr); err != nil {
		return nil, err
	}
	lic, err := s.licenseByCode(ctx, app, code)
	if err != nil {
		return nil, err
	}
	userID := uuid.NewString()
	use := &LicenseUse{
		LicenseID: lic.ID, AppID: app.ID, UserID: userID, Username: generatedUsername(userID),
		ActivationID: licenseActivationID(lic.ID), OccurredAt: s.Now(), SignUp: true,
	}
	if err := s.claim(ctx, use, lic.Grant); err != nil {
		if CodeOf(err) == CodeLicenseUsed {
			s.throttle.failCode(app, clientNetwork(ctx))
		}
		return nil, err
	}
	if err := s.finishUse(ctx, use, lic.Grant); err != nil {
		return nil, err
	}
	if err := s.checkDevice(ctx, app, userID, hardwareID); err != nil {
		return nil, err
	}
	s.throttle.signedUp(app, addr)
	s.emit(ctx, Event{Kind: EventUserSignedUp, AppID: app.ID, UserID: userID, LicenseID: lic.ID})
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
	if err := s.throttle.checkCode(app, clientNetwork(ctx)); err != nil {
		return nil, err
	}
	st, err := s.passwordUser(ctx, app, req.Username, req.Password, "")
	if err != nil {
		return nil, err
	}
	if st.ban != nil {
		return nil, errUserBanned
	}
	lic, err := s.licenseByCode(ctx, app, req.Code)
	if err != nil {
		return nil, err
	}
	use := &LicenseUse{
		LicenseID: lic.ID, AppID: app.ID, UserID: st.user.ID, Username: st.user.Username,
		ActivationID: licenseActivationID(lic.ID), OccurredAt: s.Now(),
	}
	if err := s.claim(ctx, use, lic.Grant); err != nil {
		if CodeOf(err) == CodeLicenseUsed {
			s.throttle.failCode(app, clientNetwork(ctx))
		}
		return nil, err
	}
	if err := s.finishUse(ctx, use, lic.Grant); err != nil {
		return nil, err
	}
	a := activationOf(use, lic.Grant)
	return &a, nil
}

// licenseByCode finds the application's license with this code.
// An unknown code counts against the client's address (see throttle.go).
func (s *Service) licenseByCode(ctx context.Context, app *App, code string) (*License, error) {
	id := s.licenseID(app.ID, code)
	if id == "" {
		s.throttle.failCode(app, clientNetwork(ctx))
		return nil, errLicenseInvalid
	}
	lic, err := s.store.LicenseByID(ctx, id)
	if errors.Is(err, ErrNotFound) {
		s.throttle.failCode(app, clientNetwork(ctx))
		return nil, errLicenseInvalid
	}
	return lic, wrapStore(err, "reading license")
}

// claim consumes the license for use. If it was already used, the earlier
// use is completed (it may have stopped half way) and the refusal is
// CodeLicenseUsed.
func (s *Service) claim(ctx context.Context, use *LicenseUse, g Grant) error {
	err := s.store.InsertLicenseUse(ctx, use, g)
	if err == nil {
		return nil
	}
	if !errors.Is(err, ErrDuplicate) {
		return wrapStore(err, "consuming license")
	}
	if earlier, eg, rerr := s.store.LicenseUseByID(ctx, use.LicenseID); rerr == nil {
		_ = s.completeUse(ctx, earlier, eg)
	}
	return errLicenseUsed
}

// finishUse does the writes that follow a license use this request has
// just claimed: no earlier attempt can have made them, so nothing is read
// first. (A repair racing it may write them too: the user's writes are
// idempotent and a ledger entry written twice counts once.)
func (s *Service) finishUse(ctx context.Context, use *LicenseUse, g Grant) error {
	if use.SignUp {
		if err := s.writeSignUpUser(ctx, use); err != nil {
			return err
		}
	}
	return s.appendActivation(ctx, use, g)
}

// completeUse makes sure every write that follows a license use happened,
// for a use an earlier request may have left half done.
func (s *Service) completeUse(ctx context.Context, use *LicenseUse, g Grant) error {
	deleted, err := s.store.IsUserDeleted(ctx, use.UserID)
	if err != nil {
		return wrapStore(err, "checking user")
	}
	if deleted {
		return nil // nothing to finish for a user that was deleted on purpose
	}
	if use.SignUp {
		if err := s.writeSignUpUser(ctx, use); err != nil {
			return err
		}
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
	return s.appendActivation(ctx, use, g)
}

// writeSignUpUser writes the account and the user of a license sign-up;
// both writes are idempotent.
func (s *Service) writeSignUpUser(ctx context.Context, use *LicenseUse) error {
	u := &User{ID: use.UserID, AppID: use.AppID, Username: use.Username, CreatedAt: use.OccurredAt}
	if err := s.store.InsertAccount(ctx, u); err != nil && !errors.Is(err, ErrDuplicate) {
		return wrapStore(err, "creating account")
	}
	return s.ensureUser(ctx, u)
}

func (s *Service) appendActivation(ctx context.Context, use *LicenseUse, g Grant) error {
	a := activationOf(use, g)
	if err := s.store.AppendActivation(ctx, &a); err != nil {
		return wrapStore(err, "appending activation")
	}
	s.emit(ctx, Event{Kind: EventLicenseActivated, AppID: use.AppID, UserID: use.UserID, LicenseID: use.LicenseID})
	return nil
}

func activationOf(use *LicenseUse, g Grant) Activation {
	return Activation{
		ID: use.ActivationID, AppID: use.AppID, UserID: use.UserID, Type: ActivationLicense,
		LicenseID: use.LicenseID, OccurredAt: use.OccurredAt, Minutes: g.Minutes,
		GrantsLifetimeAccess: g.GrantsLifetimeAccess, RevokesLifetimeAccess: g.RevokesLifetimeAccess,
	}
}
