package access

import (
	"context"
	"errors"
	"time"
)

// Credentials are what a client presents to identify a user. At most one
// form is used, in this order: Token, Code, Username with Password.
type Credentials struct {
	Token      string
	Code       string
	Username   string
	Password   string
	HardwareID string
}

// Present reports whether any user credential was sent.
func (c Credentials) Present() bool {
	return c.Token != "" || c.Code != "" || c.Username != "" || c.Password != ""
}

// LoginRequest logs a user in with a password or a license code.
type LoginRequest struct {
	Credentials
	// IP is the client address as the server resolved it.
	IP string
}

// SessionGrant is a new session's token, shown once.
type SessionGrant struct {
	Token     string
	ExpiresAt time.Time
}

// Login checks the credentials and then the device, ban and membership, and
// opens a session bound to the application, the user and the device.
func (s *Service) Login(ctx context.Context, app *App, req LoginRequest) (*SessionGrant, error) {
	st, err := s.credentialUser(ctx, app, req.Credentials)
	if err != nil {
		return nil, err
	}
	if err := s.authorize(ctx, app, st, req.HardwareID, true); err != nil {
		return nil, err
	}
	now := s.Now()
	ttl := app.SessionTTL
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	token := NewSessionToken()
	sess := &Session{TokenHash: SecretHash(token), AppID: app.ID, UserID: st.user.ID, CreatedAt: now, ExpiresAt: now.Add(ttl)}
	if app.DeviceAuth {
		sess.HardwareID = req.HardwareID
	}
	p, err := s.journal(ctx, Event{Kind: EventLoggedIn, At: now, AppID: app.ID, UserID: st.user.ID, Username: st.user.Username, SessionHash: sess.TokenHash})
	if err != nil {
		return nil, err
	}
	if err := s.store.InsertSession(ctx, sess); err != nil {
		p.failed(err)
		return nil, wrapStore(err, "creating session")
	}
	// The session exists: its event is told even if the cap fails.
	defer p.tell(ctx)
	if err := s.capSessions(ctx, app, st.user.ID); err != nil {
		return nil, err
	}
	s.recordLogin(ctx, &LastLogin{UserID: st.user.ID, IP: req.IP, At: now})
	return &SessionGrant{Token: token, ExpiresAt: sess.ExpiresAt}, nil
}

// recordLogin writes the last login; a failure does not fail the login.
func (s *Service) recordLogin(ctx context.Context, l *LastLogin) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lastLoginTimeout)
	defer cancel()
	_ = s.store.RecordLogin(ctx, l)
}

// Logout ends the session of token. Ending a session that is already ended
// (or never existed) succeeds.
func (s *Service) Logout(ctx context.Context, app *App, token string) error {
	if token == "" {
		return Refusal(CodeAuthenticationRequired, "A Bearer session token is required.")
	}
	d := digestOf(token)
	h := d.hash()
	sess, err := s.session(ctx, app.ID, d)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if sess.AppID != app.ID {
		return errSessionInvalid
	}
	return s.commit(ctx, func(ctx context.Context) error { return wrapStore(s.store.DeleteSession(ctx, h), "deleting session") },
		Event{Kind: EventLoggedOut, AppID: app.ID, UserID: sess.UserID, SessionHash: h})
}

// DeleteExpiredFailures removes failed attempts that no longer count.
func (s *Service) DeleteExpiredFailures(ctx context.Context) (int64, error) {
	p := s.throttle.global
	// Kept a day at least, for applications that set a longer window.
	n, err := s.store.DeleteFailuresBefore(ctx, s.Now().Add(-max(p.Window, 24*time.Hour)))
	return n, wrapStore(err, "deleting expired failures")
}

// DeleteExpiredSessions removes sessions that expired more than grace ago
// (kept that long so clients are told session_expired rather than invalid).
func (s *Service) DeleteExpiredSessions(ctx context.Context, grace time.Duration) (int64, error) {
	n, err := s.store.DeleteSessionsExpiredBefore(ctx, s.Now().Add(-grace))
	return n, wrapStore(err, "deleting expired sessions")
}

// capSessions ends a user's oldest sessions past the application's cap.
// Concurrent logins may end one session more than needed, never fewer.
func (s *Service) capSessions(ctx context.Context, app *App, userID string) error {
	limit := app.MaxSessions
	if limit <= 0 {
		limit = DefaultMaxSessions
	}
	sessions, err := s.store.UserSessions(ctx, userID)
	if err != nil {
		return wrapStore(err, "reading sessions")
	}
	for _, old := range sessions[:max(len(sessions)-limit, 0)] {
		err := s.commit(ctx, func(ctx context.Context) error {
			if err := s.store.DeleteSession(ctx, old.TokenHash); err != nil && !errors.Is(err, ErrNotFound) {
				return wrapStore(err, "ending the oldest session")
			}
			return nil
		}, Event{Kind: EventLoggedOut, AppID: app.ID, UserID: userID, SessionHash: old.TokenHash})
		if err != nil {
			return err
		}
	}
	return nil
}
