package access

import (
	"context"
	"time"
)

// Admin is a dashboard administrator: a person who signs in to the web
// dashboard with a password and, when enrolled, a TOTP code.
type Admin struct {
	// Username is unique, lower case.
	Username     string
	PasswordHash string
	// TOTPSecret is the RFC 6238 secret sign-in codes are checked against
	// while TOTPEnabled, as stored: sealed (see admintotpsecret.go), or,
	// when written before secrets were sealed, the base32 secret itself.
	// Empty when none is enabled.
	TOTPSecret  string
	TOTPEnabled bool
	// PendingTOTPSecret is a new secret begun by BeginTOTP and not yet
	// confirmed, stored like TOTPSecret; it signs nothing in until
	// ConfirmTOTP makes it the TOTPSecret. Empty when none.
	PendingTOTPSecret string
	CreatedAt         time.Time
}

// AdminSession is a signed-in dashboard session, stored by the SHA-256 of
// its token only.
type AdminSession struct {
	TokenHash string
	Username  string
	CreatedAt time.Time
	// ExpiresAt is when the session ends unless it is used: its last
	// request (as recorded, to the minute) plus the idle timeout, never
	// past CreatedAt plus AdminSessionTTL.
	ExpiresAt time.Time
}

// SellerKey is a scoped API key of one application, for a shop's backend.
// Only the SHA-256 of its secret is stored.
type SellerKey struct {
	ID         string
	AppID      string
	Name       string
	Scopes     []string
	SecretHash string
	CreatedAt  time.Time
	// LastUsedAt is when the key last authenticated a request (to the
	// minute); zero when never.
	LastUsedAt time.Time
}

// AdminStore keeps administrators, their TOTP steps and their dashboard
// sessions. Replay protection rests on a unique insert: a TOTP step is
// accepted once per administrator.
type AdminStore interface {
	InsertAdmin(ctx context.Context, a *Admin) error
	AdminByName(ctx context.Context, username string) (*Admin, error)
	// SetAdminTOTP writes a's TOTP fields (the enabled secret, whether
	// it is enabled, the pending secret) and nothing else, so it never
	// undoes a password set meanwhile; ErrNotFound unless the
	// administrator named a.Username is the one created at a.CreatedAt
	// (not one deleted and created again since a was read).
	SetAdminTOTP(ctx context.Context, a *Admin) error
	// SetAdminPassword replaces the password hash of the administrator
	// named username and created at createdAt only while it is oldHash;
	// ErrNotFound otherwise (changed meanwhile, deleted or recreated).
	SetAdminPassword(ctx context.Context, username string, createdAt time.Time, oldHash, newHash string) error
	// Admins lists administrators by username.
	Admins(ctx context.Context) ([]Admin, error)
	DeleteAdmin(ctx context.Context, username string) error
	// InsertTOTPStep records that a time step's code was accepted;
	// ErrDuplicate means it was accepted before (a replay).
	InsertTOTPStep(ctx context.Context, username string, step int64, at time.Time) error
	InsertAdminSession(ctx context.Context, s *AdminSession) error
	AdminSessionByHash(ctx context.Context, tokenHash string) (*AdminSession, error)
	// SetAdminSessionExpiry moves a session's ExpiresAt (its idle end);
	// the last write wins. It never creates a session: ErrNotFound when
	// there is none (ended meanwhile).
	SetAdminSessionExpiry(ctx context.Context, tokenHash string, expiresAt time.Time) error
	DeleteAdminSession(ctx context.Context, tokenHash string) error
	DeleteAdminSessions(ctx context.Context, username string) error
}

// SellerKeyStore keeps seller keys. Revoking a key deletes it.
type SellerKeyStore interface {
	InsertSellerKey(ctx context.Context, k *SellerKey) error
	SellerKeyByHash(ctx context.Context, secretHash string) (*SellerKey, error)
	// SellerKeys lists an application's keys, oldest first.
	SellerKeys(ctx context.Context, appID string) ([]SellerKey, error)
	DeleteSellerKey(ctx context.Context, keyID string) error
	// RecordSellerKeyUse sets a key's last use; the last write wins.
	RecordSellerKeyUse(ctx context.Context, keyID string, at time.Time) error
}
