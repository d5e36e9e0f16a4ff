package access

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// AppSettings are an application's adjustable settings; nil fields keep
// their current (or default) value.
type AppSettings struct {
	Name              *string
	DeviceAuth        *bool
	AnonymousAccess   *bool
	MaxDevices        *int
	MinPasswordLength *int
	SessionTTL        *time.Duration
	// TokenRequiresHardwareID: see App.TokenRequiresHardwareID.
	TokenRequiresHardwareID *bool
	// MaxSessions: see App.MaxSessions.
	MaxSessions *int
	// Throttle replaces the application's throttling overrides.
	Throttle *ThrottlePolicy
	// OfflineTokenTTL: see App.OfflineTokenTTL.
	OfflineTokenTTL *time.Duration
}

// Setting limits.
const (
	MaxAppNameLength = 200
	MaxDevicesLimit  = 100
	// DefaultMaxSessions is a user's session cap unless the application
	// sets another (1 to MaxSessionsLimit).
	DefaultMaxSessions = 10
	MaxSessionsLimit   = 1000
	MinSessionTTL      = time.Minute
	MaxSessionTTL      = 366 * 24 * time.Hour
	DefaultSessionTTL  = 24 * time.Hour
)

func (st AppSettings) applyTo(app *App) *Error {
	var fields []FieldError
	if st.Name != nil {
		name := strings.TrimSpace(*st.Name)
		if name == "" || utf8.RuneCountInString(name) > MaxAppNameLength {
			fields = append(fields, FieldError{"name", "must be 1 to 200 characters"})
		}
		app.Name = name
	}
	if st.DeviceAuth != nil {
		app.DeviceAuth = *st.DeviceAuth
	}
	if st.AnonymousAccess != nil {
		app.AnonymousAccess = *st.AnonymousAccess
	}
	if st.TokenRequiresHardwareID != nil {
		app.TokenRequiresHardwareID = *st.TokenRequiresHardwareID
	}
	if st.MaxDevices != nil {
		if *st.MaxDevices < 1 || *st.MaxDevices > MaxDevicesLimit {
			fields = append(fields, FieldError{"max_devices", "must be 1 to 100"})
		}
		app.MaxDevices = *st.MaxDevices
	}
	if st.MaxSessions != nil {
		if *st.MaxSessions < 1 || *st.MaxSessions > MaxSessionsLimit {
			fields = append(fields, FieldError{"max_sessions", "must be 1 to 1000"})
		}
		app.MaxSessions = *st.MaxSessions
	}
	if st.Throttle != nil {
		if !st.Throttle.valid() {
			fields = append(fields, FieldError{"throttle", "counts and durations must not be negative, and max_delay not under first_delay"})
		}
		app.Throttle = *st.Throttle
	}
	if st.MinPasswordLength != nil {
		if *st.MinPasswordLength < 1 || *st.MinPasswordLength > 256 {
			fields = append(fields, FieldError{"min_password_length", "must be 1 to 256"})
		}
		app.MinPasswordLength = *st.MinPasswordLength
	}
	if st.SessionTTL != nil {
		if *st.SessionTTL < MinSessionTTL || *st.SessionTTL > MaxSessionTTL {
			fields = append(fields, FieldError{"session_ttl", "must be between 1m and 8784h"})
		}
		app.SessionTTL = *st.SessionTTL
	}
	if st.OfflineTokenTTL != nil {
		if *st.OfflineTokenTTL < MinOfflineTokenTTL || *st.OfflineTokenTTL > MaxOfflineTokenTTL {
			fields = append(fields, FieldError{"offline_token_ttl", "must be between 1m and 8784h"})
		}
		app.OfflineTokenTTL = *st.OfflineTokenTTL
	}
	if len(fields) > 0 {
		return Invalid(fields...)
	}
	return nil
}

// NewApp is a created application with its secret, shown only once.
type NewApp struct {
	App
	APISecret string
}

// CreateApp registers an application. Name is required.
func (s *Service) CreateApp(ctx context.Context, st AppSettings) (*NewApp, error) {
	if st.Name == nil {
		return nil, Invalid(FieldError{"name", "is required"})
	}
	app := App{ID: uuid.NewString(), APIKey: NewAPIKey(), MaxDevices: 1, MinPasswordLength: 8,
		SessionTTL: DefaultSessionTTL, MaxSessions: DefaultMaxSessions, CreatedAt: s.Now()}
	if err := st.applyTo(&app); err != nil {
		return nil, err
	}
	secret := NewAPISecret()
	app.SecretHash = SecretHash(secret)
	p, err := s.journal(ctx, Event{Kind: EventAppCreated, AppID: app.ID, APIKey: app.APIKey, After: appSettingsOf(&app)})
	if err != nil {
		return nil, err
	}
	if err := s.store.InsertApp(ctx, &app); err != nil {
		p.failed(err)
		return nil, wrapStore(err, "creating application")
	}
	_ = s.createFirstSigningKey(ctx, app.ID) // made on first need otherwise
	p.tell(ctx)
	return &NewApp{App: app, APISecret: secret}, nil
}

// App returns an application by ID.
func (s *Service) App(ctx context.Context, appID string) (*App, error) {
	app, err := s.store.AppByID(ctx, appID)
	if errors.Is(err, ErrNotFound) {
		return nil, notFound("application")
	}
	return app, wrapStore(err, "reading application")
}

// Apps lists all applications.
func (s *Service) Apps(ctx context.Context) ([]App, error) {
	apps, err := s.store.Apps(ctx)
	return apps, wrapStore(err, "listing applications")
}

// UpdateApp changes an application's settings; the change applies to the
// next request on this instance and within the staleness bound elsewhere.
func (s *Service) UpdateApp(ctx context.Context, appID string, st AppSettings) (*App, error) {
	app, err := s.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	before := *app
	if err := st.applyTo(app); err != nil {
		return nil, err
	}
	was, is := settingsChange(&before, app)
	err = s.commit(ctx, func(ctx context.Context) error {
		return wrapStore(s.store.ReplaceApp(ctx, app), "updating application")
	},
		Event{Kind: EventAppChanged, AppID: app.ID, APIKey: app.APIKey, Before: was, After: is})
	if err != nil {
		return nil, err
	}
	return app, nil
}

// RotateSecret gives an application a new secret; the old one stops working.
func (s *Service) RotateSecret(ctx context.Context, appID string) (string, error) {
	app, err := s.App(ctx, appID)
	if err != nil {
		return "", err
	}
	secret := NewAPISecret()
	app.SecretHash = SecretHash(secret)
	err = s.commit(ctx, func(ctx context.Context) error { return wrapStore(s.store.ReplaceApp(ctx, app), "rotating secret") },
		Event{Kind: EventSecretRotated, AppID: app.ID, APIKey: app.APIKey})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// DeleteApp removes an application; its key stops working at once here.
// Its users, licenses and content stay in the store, unreachable.
func (s *Service) DeleteApp(ctx context.Context, appID string) error {
	app, err := s.App(ctx, appID)
	if err != nil {
		return err
	}
	return s.commit(ctx, func(ctx context.Context) error {
		return wrapStore(s.store.DeleteApp(ctx, appID), "deleting application")
	},
		Event{Kind: EventAppDeleted, AppID: app.ID, APIKey: app.APIKey, Before: appSettingsOf(app)})
}
