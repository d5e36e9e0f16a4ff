package access

import (
	"context"
	"errors"
)

// Authentication: the application's key and secret, then one of the user's
// credential forms (a session token, a license code, a username and
// password), then authorisation (device, ban, membership). Every path that
// identifies a client is in this file.

// AuthenticateApp returns the application whose key and secret these are.
// A missing, unknown or mismatched pair is a CodeInvalidApplication refusal.
//
// The right key and secret are never held back: a secret has 256 bits, so
// there is nothing to guess, and holding back the right one would let one
// client lock out everyone behind its address. A wrong one counts against
// the address (secret_free), and past the free ones is answered 429 instead
// of 401; a request that names no key or no secret guesses nothing and is
// not counted.
func (s *Service) AuthenticateApp(ctx context.Context, apiKey, apiSecret string) (*App, error) {
	if apiKey == "" || apiSecret == "" {
		return nil, errInvalidApplication
	}
	if len(apiKey) > 256 || len(apiSecret) > 256 {
		return nil, s.wrongSecret(ctx)
	}
	app, err := s.appByKey(ctx, apiKey)
	if errors.Is(err, ErrNotFound) {
		// Spend the same hashing work as a known key would.
		secretMatches(apiSecret, "")
		return nil, s.wrongSecret(ctx)
	}
	if err != nil {
		return nil, err
	}
	if !secretMatches(apiSecret, app.SecretHash) {
		return nil, s.wrongSecret(ctx)
	}
	return app, nil
}

// wrongSecret is the refusal of a wrong application key or secret: 401,
// counted against the client's address, or 429 while the address is held
// back (then not counted).
func (s *Service) wrongSecret(ctx context.Context) error {
	if err := s.throttle.missedSecret(clientNetwork(ctx)); err != nil {
		return err
	}
	return errInvalidApplication
}

func (s *Service) appByKey(ctx context.Context, apiKey string) (*App, error) {
	if app, ok := s.apps.get(apiKey); ok {
		return app, nil
	}
	stamp := s.apps.stamp()
	app, err := s.store.AppByKey(ctx, apiKey)
	if err != nil {
		return nil, wrapStore(err, "reading application")
	}
	s.apps.setStamped(apiKey, app, stamp)
	return app, nil
}

// Authenticate identifies the user of a request the way GET /app_context
// does. It returns nil (and no error) for an anonymous request the
// application allows; credentials that are sent are always checked.
// With requireActive false, an inactive membership is not refused.
func (s *Service) Authenticate(ctx context.Context, app *App, c Credentials, requireActive bool) (*UserView, error) {
	if !c.Present() {
		if app.AnonymousAccess {
			return nil, nil
		}
		return nil, errAnonymousRefused
	}
	var (
		st          *userState
		err         error
		checkDevice = true
	)
	if c.Token != "" {
		st, err = s.sessionUser(ctx, app, c.Token, c.HardwareID)
		checkDevice = false // sessionUser held the session to its device
	} else {
		st, err = s.credentialUser(ctx, app, c)
	}
	if err != nil {
		return nil, err
	}
	if err := s.authorize(ctx, app, st, c.HardwareID, checkDevice); err != nil {
		if !requireActive && errors.Is(err, errMembershipInactive) {
			return st.view(), nil
		}
		return nil, err
	}
	return st.view(), nil
}

// authorize applies the checks that follow authentication, in order:
// the device, the ban, then the membership.
func (s *Service) authorize(ctx context.Context, app *App, st *userState, hardwareID string, checkDevice bool) error {
	if checkDevice {
		if err := s.checkDevice(ctx, app, st.user.ID, hardwareID); err != nil {
			return err
		}
	}
	if st.ban != nil {
		return errUserBanned
	}
	if !st.membership.IsActive(s.now()) {
		return errMembershipInactive
	}
	return nil
}

// credentialUser authenticates a license code or a username and password.
func (s *Service) credentialUser(ctx context.Context, app *App, c Credentials) (*userState, error) {
	switch {
	case c.Code != "":
		return s.licenseUser(ctx, app, c.Code)
	case c.Username != "" || c.Password != "":
		return s.passwordUser(ctx, app, c.Username, c.Password, c.HardwareID)
	}
	return nil, errInvalidCredentials
}

// sessionUser authenticates a session token presented with hardwareID (the
// request's x-hardware-id, possibly empty). With device authentication on,
// a session is held to the device it was opened on: another device is
// CodeDeviceMismatch; no device is accepted unless the application sets
// TokenRequiresHardwareID; a session opened before device authentication
// was turned on names no device and is CodeDeviceRequired.
func (s *Service) sessionUser(ctx context.Context, app *App, token, hardwareID string) (*userState, error) {
	if len(token) > 256 {
		return nil, errSessionInvalid
	}
	sess, err := s.session(ctx, app.ID, digestOf(token))
	if errors.Is(err, ErrNotFound) {
		return nil, errSessionInvalid
	}
	if err != nil {
		return nil, err
	}
	if sess.AppID != app.ID {
		return nil, errSessionInvalid
	}
	if !s.now().Before(sess.ExpiresAt) {
		return nil, errSessionExpired
	}
	if err := sessionDevice(app, sess, hardwareID); err != nil {
		return nil, err
	}
	st, err := s.state(ctx, sess.AppID, sess.UserID)
	if errors.Is(err, ErrNotFound) {
		return nil, errSessionInvalid
	}
	return st, err
}

// sessionDevice applies the device rule of token requests (see sessionUser).
func sessionDevice(app *App, sess *Session, hardwareID string) error {
	switch {
	case !app.DeviceAuth:
		return nil
	case sess.HardwareID == "":
		return errSessionWithoutDevice
	case hardwareID == "":
		if app.TokenRequiresHardwareID {
			return errDeviceRequired
		}
		return nil
	case hardwareID != sess.HardwareID:
		return errSessionDeviceMismatch
	}
	return nil
}

// session returns the session whose token has the digest token, without
// its TokenHash (token.hash() is it): the cache is keyed by the digest, so
// that a hit costs no allocation.
func (s *Service) session(ctx context.Context, appID string, token secretDigest) (*Session, error) {
	if sess, ok := s.sessions.get(token); ok {
		return sess, nil
	}
	stamp := s.sessions.stamp()
	tokenHash := token.hash()
	sess, err := s.store.SessionByHash(ctx, tokenHash)
	if err != nil {
		return nil, wrapStore(err, "reading session")
	}
	// The cache keeps one copy of the strings it holds many times, and no
	// copy of the hash: the digest is the key (75 bytes less a session).
	share(&sess.AppID, appID)
	sess.TokenHash = ""
	s.sessions.setStamped(token, sess, stamp)
	return sess, nil
}

// licenseUser authenticates a user by a license code. A code is a
// credential only for the account it created (a license sign-up): a code
// that was activated by an existing account is not a way into that account,
// and is refused exactly like an unknown code.
func (s *Service) licenseUser(ctx context.Context, app *App, code string) (*userState, error) {
	attempt := s.throttle.codeAttempt(app, clientNetwork(ctx))
	refuse := func() (*userState, error) { return nil, attempt.refuse(ctx, errInvalidCredentials) }
	id := s.licenseID(app.ID, code)
	if id == "" {
		return refuse()
	}
	use, ok := s.uses.get(id)
	if !ok {
		u, g, err := s.store.LicenseUseByID(ctx, id)
		if errors.Is(err, ErrNotFound) {
			return refuse()
		}
		if err != nil {
			return nil, wrapStore(err, "reading license use")
		}
		if u.AppID != app.ID {
			return refuse()
		}
		if err := s.completeUse(ctx, u, g); err != nil {
			return nil, err
		}
		use = u
		s.uses.set(id, use)
	}
	if !use.SignUp {
		return refuse()
	}
	st, err := s.state(ctx, app.ID, use.UserID)
	if errors.Is(err, ErrNotFound) {
		s.uses.remove(id)
		return refuse()
	}
	return st, err
}

// upgradePassword rehashes a password just verified against hash when
// hash was made with less memory or fewer passes than configured, so that
// raising them reaches every user at their next login. Best effort, and
// not a password change (no event, no session ends): it runs only when a
// hashing slot is free at once, so it never makes a login wait behind
// others; the rehash is stored only while hash is still the account's, so
// a change made meanwhile stands; a skipped rehash or a failed write
// leaves the old hash, which still verifies, for the next login.
func (s *Service) upgradePassword(ctx context.Context, appID, usernameKey, password, hash string) {
	if !s.hasher.Outdated(hash) {
		return
	}
	if upgraded, ok := s.hasher.HashIfIdle(password); ok {
		_ = s.store.UpgradeAccountPassword(ctx, appID, usernameKey, hash, upgraded)
	}
}

// passwordUser authenticates a username and password sent with hardware
// id hwid (possibly empty), returning the user's state. Unknown users and
// wrong passwords take the same time, give the same refusal and are
// throttled alike; the throttle is checked before anything else, the
// cache of verified pairs included, so that its answer never depends on
// whether the password is right. A verified pair is remembered for
// CredentialCacheTTL.
func (s *Service) passwordUser(ctx context.Context, app *App, username, password, hwid string) (*userState, error) {
	if username == "" || password == "" || len(username) > 4*MaxUsernameLength || len(password) > MaxPasswordBytes {
		return nil, errInvalidCredentials
	}
	key := UsernameKey(username)
	account, addr := throttleKey("account", app.ID, key), clientNetwork(ctx)
	attempt, err := s.throttle.reservePassword(ctx, app, account, addr, hwid, s.userHolds(app.ID))
	if err != nil {
		return nil, err
	}
	defer attempt.release(ctx)
	ck := s.credentialKey(app.ID, key, password)
	if c, ok := s.creds.get(ck); ok {
		st, err := s.state(ctx, app.ID, c.userID)
		if err == nil {
			attempt.succeeded(ctx, hwid, c.userID)
			return st, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		s.creds.remove(ck)
	}
	stamp := s.creds.stamp()
	acct, err := s.store.AccountByName(ctx, app.ID, key)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, wrapStore(err, "reading account")
	}
	var hash string
	if acct != nil {
		hash = acct.PasswordHash
	}
	ok, err := s.hasher.Verify(ctx, password, hash)
	if err != nil {
		return nil, err
	}
	if !ok {
		var userID string
		if acct != nil {
			userID = acct.ID
		}
		if err := attempt.failed(ctx, userID); err != nil {
			return nil, err
		}
		return nil, errInvalidCredentials
	}
	s.upgradePassword(ctx, app.ID, key, password, hash)
	st, err := s.state(ctx, app.ID, acct.ID)
	if errors.Is(err, ErrNotFound) {
		// The sign-up stopped before the by-ID document was written.
		if deleted, derr := s.store.IsUserDeleted(ctx, acct.ID); derr != nil || deleted {
			return nil, errInvalidCredentials
		}
		if err = s.ensureUser(ctx, acct); err != nil {
			return nil, err
		}
		st, err = s.state(ctx, app.ID, acct.ID)
	}
	if err != nil {
		return nil, err
	}
	s.creds.setStamped(ck, credential{userID: acct.ID}, stamp)
	attempt.succeeded(ctx, hwid, acct.ID)
	return st, nil
}
