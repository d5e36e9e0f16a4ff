package access

import (
	"context"
	"errors"
)

// PasswordChange is a user's change of their own password.
type PasswordChange struct {
	Username    string
	OldPassword string
	NewPassword string
	// HardwareID is the device the change is made from: with device
	// authentication it must be one of the user's, as for a login.
	HardwareID string
	// Token, when set, is the session the change is made from: it stays
	// open while the user's other sessions end.
	Token string
}

// ChangePassword replaces a user's password after checking the old one
// and, with device authentication, the device (a password alone, from
// another machine, must not take an account whose devices are locked),
// ends the user's other sessions and forgets the verified credentials
// cached for the old password.
func (s *Service) ChangePassword(ctx context.Context, app *App, req PasswordChange) error {
	var fields []FieldError
	for _, f := range []struct{ name, v string }{{"username", req.Username}, {"old_password", req.OldPassword}, {"new_password", req.NewPassword}} {
		if f.v == "" {
			fields = append(fields, FieldError{f.name, "is required"})
		}
	}
	if len(fields) > 0 {
		return Invalid(fields...)
	}
	st, err := s.passwordUser(ctx, app, req.Username, req.OldPassword, "")
	if err != nil {
		return err
	}
	if st.ban != nil {
		return errUserBanned
	}
	if err := s.checkDevice(ctx, app, st.user.ID, req.HardwareID); err != nil {
		return err
	}
	if fe := validatePassword(app, st.user.Username, req.NewPassword); fe != nil {
		fe.Field = "new_password"
		return Invalid(*fe)
	}
	var keep *Session
	if req.Token != "" {
		d := digestOf(req.Token)
		if sess, err := s.session(ctx, app.ID, d); err == nil && sess.AppID == app.ID && sess.UserID == st.user.ID {
			k := *sess // the cached one has no hash
			k.TokenHash = d.hash()
			keep = &k
		}
	}
	return s.setPassword(ctx, app.ID, st.user, req.NewPassword, keep)
}

// ResetPassword sets a user's password (an administrator's reset, also for
// a user who signed up with a license code) and ends all their sessions.
func (s *Service) ResetPassword(ctx context.Context, appID, userID, password string) error {
	app, err := s.App(ctx, appID)
	if err != nil {
		return err
	}
	u, err := s.UserOf(ctx, appID, userID)
	if err != nil {
		return err
	}
	if fe := validatePassword(app, u.Username, password); fe != nil {
		return Invalid(*fe)
	}
	return s.setPassword(ctx, appID, u, password, nil)
}

// setPassword stores the new hash and ends the user's sessions but keep.
// The hash is computed before any write.
func (s *Service) setPassword(ctx context.Context, appID string, u *User, password string, keep *Session) error {
	hash, err := s.hasher.Hash(ctx, password)
	if err != nil {
		return err
	}
	p, err := s.journal(ctx, Event{Kind: EventPasswordChanged, AppID: appID, UserID: u.ID})
	if err != nil {
		return err
	}
	err = s.store.SetAccountPassword(ctx, appID, UsernameKey(u.Username), hash)
	if err != nil {
		p.failed(err)
	}
	if errors.Is(err, ErrNotFound) {
		return notFound("user")
	}
	if err != nil {
		return wrapStore(err, "setting password")
	}
	defer p.tell(ctx)
	if err := s.store.DeleteUserSessions(ctx, u.ID); err != nil {
		return wrapStore(err, "ending sessions")
	}
	if keep != nil {
		return wrapStore(s.store.InsertSession(ctx, keep), "keeping the current session")
	}
	return nil
}
