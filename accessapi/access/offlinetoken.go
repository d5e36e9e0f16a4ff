package access

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"
)

// Offline license tokens let a client keep working without the network
// for a while: a compact token signed by the application's active key
// (docs/api.md, "Offline license tokens"):
//
//	aat1.<base64url(payload JSON)>.<base64url(Ed25519 signature)>
//
// The signature covers the ASCII bytes "aat1." followed by the payload part.

// OfflineTokenPrefix is the version tag that starts every offline token.
const OfflineTokenPrefix = "aat1."

// Offline token lifetimes: an application may set its own (AppSettings).
const (
	DefaultOfflineTokenTTL = 72 * time.Hour
	MinOfflineTokenTTL     = time.Minute
	MaxOfflineTokenTTL     = 366 * 24 * time.Hour
)

// OfflineClaims is the payload of an offline token. Its JSON form, in this
// field order, is what is signed.
type OfflineClaims struct {
	KeyID      string            `json:"kid"`
	AppID      string            `json:"app"`
	UserID     string            `json:"sub"`
	Username   string            `json:"username"`
	Membership OfflineMembership `json:"membership"`
	// HardwareID is the device the token is held to; set only when the
	// application has device authentication on.
	HardwareID string `json:"hwid,omitempty"`
	// IssuedAt and ValidUntil are Unix seconds.
	IssuedAt   int64 `json:"iat"`
	ValidUntil int64 `json:"exp"`
}

// OfflineMembership is the membership an offline token carries, as the
// client API shows it when the token is issued.
type OfflineMembership struct {
	IsActive   bool `json:"is_active"`
	IsLifetime bool `json:"is_lifetime"`
	// ExpiresAt is RFC 3339 in UTC, null when no time was ever added.
	ExpiresAt *string `json:"expires_at"`
}

// OfflineToken is an issued token and the end of its validity.
type OfflineToken struct {
	Token      string
	ValidUntil time.Time
}

// offlineTokenTTL is the application's token lifetime.
func offlineTokenTTL(app *App) time.Duration {
	if app.OfflineTokenTTL > 0 {
		return app.OfflineTokenTTL
	}
	return DefaultOfflineTokenTTL
}

// IssueOfflineToken authenticates a user exactly as GET /app_context does
// and returns a token signed by the application's active key. Anonymous
// requests are refused (a token is a user's), as is an inactive membership
// (403, as app_context); with device authentication on, the request must
// name its hardware id, which the token is held to. The token is valid for
// the application's offline token lifetime, and never past the end of the
// membership.
func (s *Service) IssueOfflineToken(ctx context.Context, app *App, c Credentials) (*OfflineToken, error) {
	if !c.Present() {
		return nil, Refusal(CodeAuthenticationRequired, "An offline token is issued to a user: send the user's credentials.")
	}
	if app.DeviceAuth && c.HardwareID == "" {
		return nil, errDeviceRequired
	}
	u, err := s.Authenticate(ctx, app, c, true)
	if err != nil {
		return nil, err
	}
	r, err := s.keyRing(ctx, app.ID)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC().Truncate(time.Second)
	until := now.Add(offlineTokenTTL(app))
	if !u.Membership.IsLifetime && u.Membership.ExpiresAt != nil && u.Membership.ExpiresAt.Before(until) {
		until = u.Membership.ExpiresAt.UTC().Truncate(time.Second)
	}
	claims := OfflineClaims{KeyID: r.signer.KeyID, AppID: app.ID, UserID: u.ID, Username: u.Username,
		Membership: OfflineMembership{IsActive: true, IsLifetime: u.Membership.IsLifetime, ExpiresAt: rfc3339Ptr(u.Membership.ExpiresAt)},
		IssuedAt:   now.Unix(), ValidUntil: until.Unix()}
	if app.DeviceAuth {
		claims.HardwareID = c.HardwareID
	}
	tok, err := SignOfflineToken(r.signer.batch.key, claims)
	if err != nil {
		return nil, err
	}
	return &OfflineToken{Token: tok, ValidUntil: until}, nil
}

// SignOfflineToken encodes claims as an offline token signed by key.
func SignOfflineToken(key ed25519.PrivateKey, claims OfflineClaims) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("encoding offline token: %w", err)
	}
	signed := OfflineTokenPrefix + base64.RawURLEncoding.EncodeToString(payload)
	return signed + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(key, []byte(signed))), nil
}

func rfc3339Ptr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05.999Z07:00")
	return &s
}
