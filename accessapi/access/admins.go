package access

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"
)

// MinAdminPasswordLength is the shortest administrator password accepted.
const MinAdminPasswordLength = 12

// AdminSessionTTL is the longest a dashboard session lasts, however active
// (Config.AdminIdleTimeout ends an idle one sooner).
const AdminSessionTTL = 12 * time.Hour

var adminNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// adminPasswordPolicy is the password rule of administrators: users'
// rules (no common password, not the username, at most MaxPasswordBytes)
// at MinAdminPasswordLength characters. An administrator signs in on the
// public site, so a common password is the likeliest way in.
var adminPasswordPolicy = &App{MinPasswordLength: MinAdminPasswordLength}

// adminThrottleApp stands for "the dashboard" in the throttler, whose
// counters are per application: its zero policy takes the server's.
var adminThrottleApp = &App{ID: "\x00admin"}

// CreateAdmin makes an administrator with an argon2id password hash.
func (s *Service) CreateAdmin(ctx context.Context, username, password string) (*Admin, error) {
	username = strings.ToLower(strings.TrimSpace(username))
	if !adminNamePattern.MatchString(username) {
		return nil, Invalid(FieldError{"username", "must be 1 to 64 letters, digits, dots, dashes or underscores"})
	}
	if fe := validatePassword(adminPasswordPolicy, username, password); fe != nil {
		return nil, Invalid(*fe)
	}
	hash, err := s.hasher.Hash(ctx, password)
	if err != nil {
		return nil, err
	}
	a := &Admin{Username: username, PasswordHash: hash, CreatedAt: s.Now()}
	if err := s.commit(ctx, func(ctx context.Context) error { return s.store.InsertAdmin(ctx, a) },
		Event{Kind: EventAdminCreated, Target: a.Username}); err != nil {
		if errors.Is(err, ErrDuplicate) {
			return nil, Refusal(CodeConflict, "An administrator with this username exists.")
		}
		return nil, wrapStore(err, "creating administrator")
	}
	return a, nil
}

// Admins lists the administrators.
func (s *Service) Admins(ctx context.Context) ([]Admin, error) {
	as, err := s.store.Admins(ctx)
	return as, wrapStore(err, "listing administrators")
}

// AdminNamed returns an administrator.
func (s *Service) AdminNamed(ctx context.Context, username string) (*Admin, error) {
	a, err := s.store.AdminByName(ctx, strings.ToLower(username))
	if errors.Is(err, ErrNotFound) {
		return nil, Refusal(CodeNotFound, "There is no such administrator.")
	}
	return a, wrapStore(err, "reading administrator")
}

// DeleteAdmin removes an administrator and ends their sessions.
func (s *Service) DeleteAdmin(ctx context.Context, username string) error {
	a, err := s.AdminNamed(ctx, username)
	if err != nil {
		return err
	}
	return s.commit(ctx, func(ctx context.Context) error {
		if err := s.store.DeleteAdminSessions(ctx, a.Username); err != nil {
			return wrapStore(err, "ending administrator sessions")
		}
		return wrapStore(s.store.DeleteAdmin(ctx, a.Username), "deleting administrator")
	}, Event{Kind: EventAdminDeleted, Target: a.Username})
}

// SetAdminPassword replaces an administrator's password (the operator's
// answer to a forgotten one) under the same rules as at creation, and ends
// the administrator's dashboard sessions. The TOTP enrolment and the
// known sign-in addresses stay: it is the same administrator. The write is
// conditional on the hash read, so of two resets at once one is refused
// (a conflict) rather than both reported done, and one that raced a
// deletion and re-creation of the name touches nothing.
func (s *Service) SetAdminPassword(ctx context.Context, username, password string) error {
	a, err := s.AdminNamed(ctx, username)
	if err != nil {
		return err
	}
	if fe := validatePassword(adminPasswordPolicy, a.Username, password); fe != nil {
		return Invalid(*fe)
	}
	hash, err := s.hasher.Hash(ctx, password)
	if err != nil {
		return err
	}
	err = s.commit(ctx, func(ctx context.Context) error {
		if err := s.store.SetAdminPassword(ctx, a.Username, a.CreatedAt, a.PasswordHash, hash); err != nil {
			return err
		}
		return s.store.DeleteAdminSessions(ctx, a.Username)
	}, Event{Kind: EventAdminPasswordSet, Target: a.Username})
	if errors.Is(err, ErrNotFound) {
		return Refusal(CodeConflict, "The administrator was changed meanwhile; try again.")
	}
	return wrapStore(err, "setting administrator password")
}

// upgradeAdminPassword rehashes the password of an administrator who has
// just signed in when its hash is outdated, as upgradePassword does for
// users (a free hashing slot, a write conditional on the hash read); a
// then holds the new hash, which this sign-in's own session check
// (sessionStillAllowed) reads back. A sign-in of the same administrator
// racing it reads back a hash it did not check and is refused, as after a
// reset: it fails safe, and only at the first sign-in after a cost raise.
func (s *Service) upgradeAdminPassword(ctx context.Context, a *Admin, password string) {
	if !s.hasher.Outdated(a.PasswordHash) {
		return
	}
	upgraded, ok := s.hasher.HashIfIdle(password)
	if ok && s.store.SetAdminPassword(ctx, a.Username, a.CreatedAt, a.PasswordHash, upgraded) == nil {
		a.PasswordHash = upgraded
	}
}

// errAdminSignIn is the one answer to every failed sign-in, whatever was
// wrong: the username, the password or the TOTP code.
var errAdminSignIn = Refusal(CodeInvalidCredentials, "The username, password or code is wrong.")

// SignInAdmin checks an administrator's password and, when enrolled, TOTP
// code (each step accepted once), and opens a dashboard session. It
// returns the session token, which only the caller ever sees. Failures are
// throttled like user logins, per account and address. A failure whose
// cause is the server's (a TOTP secret the file key does not open) is a
// *SignInFault, which reads as the invalid_credentials refusal; the caller
// logs it.
func (s *Service) SignInAdmin(ctx context.Context, username, password, code string) (string, *AdminSession, error) {
	username = strings.ToLower(strings.TrimSpace(username))
	if len(password) > MaxPasswordBytes {
		return "", nil, errAdminSignIn
	}
	account, addr := throttleKey("admin", username), clientNetwork(ctx)
	attempt, err := s.throttle.reservePassword(ctx, adminThrottleApp, account, addr, "", s.adminHolds(username))
	if err != nil {
		return "", nil, err
	}
	defer attempt.release(ctx)
	a, err := s.store.AdminByName(ctx, username)
	hash := ""
	switch {
	case err == nil:
		hash = a.PasswordHash
	case !errors.Is(err, ErrNotFound):
		return "", nil, wrapStore(err, "reading administrator")
	}
	ok, err := s.hasher.Verify(ctx, password, hash)
	if err != nil {
		return "", nil, err
	}
	// A TOTP secret that cannot be opened fails the sign-in as a wrong
	// code does, counted and answered alike: a distinct answer (a 500)
	// would tell a guesser the password is right. The fault goes to the
	// caller for the operator's log.
	var fault error
	if ok && a.TOTPEnabled {
		ok, err = s.checkTOTP(ctx, a, code)
		if signInFault(err) {
			fault, err = err, nil
		}
		if err != nil {
			return "", nil, err
		}
	}
	if !ok {
		if err := attempt.failed(ctx, ""); err != nil {
			return "", nil, err
		}
		if fault != nil {
			return "", nil, fault
		}
		return "", nil, errAdminSignIn
	}
	attempt.succeeded(ctx, "", adminIncarnation(a))
	s.upgradeAdminPassword(ctx, a, password)
	token := randomToken("ds_", 32)
	now := s.Now()
	sess := &AdminSession{TokenHash: SecretHash(token), Username: a.Username, CreatedAt: now, ExpiresAt: s.adminSessionEnd(now, now)}
	if err := s.commit(ctx, func(ctx context.Context) error { return s.store.InsertAdminSession(ctx, sess) },
		Event{Kind: EventAdminSignedIn, Target: a.Username}); err != nil {
		return "", nil, wrapStore(err, "opening dashboard session")
	}
	// A TOTP change or a deletion that ended the administrator's sessions
	// while this sign-in checked the old factors missed this one.
	if ok, err := s.sessionStillAllowed(ctx, a); !ok || err != nil {
		_ = s.store.DeleteAdminSession(ctx, sess.TokenHash)
		if err != nil {
			return "", nil, err
		}
		return "", nil, errAdminSignIn
	}
	return token, sess, nil
}

// AdminSessionOf returns the live session of a dashboard token, or an
// authentication_required refusal. A session lives only as long as its
// administrator: DeleteAdmin ends the sessions it finds, but a sign-in that
// read the account before the deletion may store its session after it (a
// departing administrator who keeps signing in wins that race), so the
// account is read here too, and a session older than the account of its
// name (one of a deleted administrator whose name was given again) is no
// session of it. A session idle for the idle timeout, or older than
// AdminSessionTTL, is over; a live one's idle end moves on (written at
// most once a minute).
func (s *Service) AdminSessionOf(ctx context.Context, token string) (*AdminSession, error) {
	signIn := Refusal(CodeAuthenticationRequired, "Sign in first.")
	if token == "" {
		return nil, signIn
	}
	hash := SecretHash(token)
	sess, err := s.store.AdminSessionByHash(ctx, hash)
	now := s.Now()
	if errors.Is(err, ErrNotFound) || (err == nil && !adminSessionLive(sess, now)) {
		return nil, signIn
	}
	if err != nil {
		return nil, wrapStore(err, "reading dashboard session")
	}
	a, err := s.store.AdminByName(ctx, sess.Username)
	if errors.Is(err, ErrNotFound) || (err == nil && sess.CreatedAt.Before(a.CreatedAt)) {
		// Best effort: the session is refused whether or not it is gone.
		_ = s.store.DeleteAdminSession(ctx, hash)
		return nil, signIn
	}
	if err != nil {
		return nil, wrapStore(err, "reading the session's administrator")
	}
	s.touchAdminSession(ctx, sess, now)
	return sess, nil
}

// SignOutAdmin ends a dashboard session.
func (s *Service) SignOutAdmin(ctx context.Context, token string) error {
	hash := SecretHash(token)
	sess, err := s.store.AdminSessionByHash(ctx, hash)
	if err == nil {
		err = s.commit(ctx, func(ctx context.Context) error { return s.store.DeleteAdminSession(ctx, hash) },
			Event{Kind: EventAdminSignedOut, Target: sess.Username})
	}
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return wrapStore(err, "ending dashboard session")
}
