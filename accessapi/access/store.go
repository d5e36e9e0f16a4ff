package access

import (
	"context"
	"io"
	"time"
)

// The storage interfaces. Every method that inserts returns ErrDuplicate
// when the unique key is taken, and every single-document read returns
// ErrNotFound when there is none. Correctness rests only on those unique
// inserts: no method reads, changes and writes back a shared document.

// AppStore keeps applications.
type AppStore interface {
	InsertApp(ctx context.Context, app *App) error
	ReplaceApp(ctx context.Context, app *App) error
	DeleteApp(ctx context.Context, appID string) error
	AppByID(ctx context.Context, appID string) (*App, error)
	AppByKey(ctx context.Context, apiKey string) (*App, error)
	Apps(ctx context.Context) ([]App, error)
}

// UserStore keeps users. A user is two documents: the account, unique by
// (application, username key), which holds the credentials, and the user by
// ID. The account is written first and is enough to recreate the other.
type UserStore interface {
	InsertAccount(ctx context.Context, u *User) error
	AccountByName(ctx context.Context, appID, usernameKey string) (*User, error)
	DeleteAccount(ctx context.Context, appID, usernameKey string) error
	// SetAccountPassword replaces an account's password hash; the
	// account's owner (or an administrator) is its only writer.
	SetAccountPassword(ctx context.Context, appID, usernameKey, passwordHash string) error
	InsertUser(ctx context.Context, u *User) error
	UserByID(ctx context.Context, userID string) (*User, error)
	Users(ctx context.Context, appID, usernameKey, after string, limit int) ([]User, error)
	DeleteUser(ctx context.Context, userID string) error
	// MarkUserDeleted leaves a tombstone so that no repair recreates the user.
	MarkUserDeleted(ctx context.Context, userID string) error
	IsUserDeleted(ctx context.Context, userID string) (bool, error)
}

// BanStore keeps bans, one document per banned user.
type BanStore interface {
	InsertBan(ctx context.Context, b *Ban) error
	BanOf(ctx context.Context, userID string) (*Ban, error)
	DeleteBan(ctx context.Context, userID string) error
}

// LoginStore keeps each user's last login, written by the last login to finish.
type LoginStore interface {
	RecordLogin(ctx context.Context, l *LastLogin) error
	LastLoginOf(ctx context.Context, userID string) (*LastLogin, error)
	DeleteLogin(ctx context.Context, userID string) error
}

// ActivationLedger is the append-only ledger memberships are derived from.
type ActivationLedger interface {
	// AppendActivation adds an entry to the user's ledger.
	AppendActivation(ctx context.Context, a *Activation) error
	// Ledger returns all entries of a user's ledger.
	Ledger(ctx context.Context, userID string) ([]Activation, error)
	DeleteLedger(ctx context.Context, userID string) error
}

// LicenseStore keeps licenses and their single-use claims.
type LicenseStore interface {
	InsertLicenses(ctx context.Context, ls []License) error
	LicenseByID(ctx context.Context, licenseID string) (*License, error)
	Licenses(ctx context.Context, appID, after string, limit int) ([]License, error)
	DeleteLicense(ctx context.Context, licenseID string) error
	// InsertLicenseUse claims a license; ErrDuplicate means it is used.
	InsertLicenseUse(ctx context.Context, u *LicenseUse, g Grant) error
	LicenseUseByID(ctx context.Context, licenseID string) (*LicenseUse, Grant, error)
}

// DeviceStore keeps registered devices, one document per (user, slot).
type DeviceStore interface {
	InsertDevice(ctx context.Context, d *Device) error
	DeviceInSlot(ctx context.Context, userID string, slot int) (*Device, error)
	DeleteDevices(ctx context.Context, userID string) error
}

// SessionStore keeps sessions by token hash.
type SessionStore interface {
	InsertSession(ctx context.Context, s *Session) error
	SessionByHash(ctx context.Context, tokenHash string) (*Session, error)
	DeleteSession(ctx context.Context, tokenHash string) error
	DeleteUserSessions(ctx context.Context, userID string) error
	// UserSessions returns a user's sessions, oldest first.
	UserSessions(ctx context.Context, userID string) ([]Session, error)
	DeleteSessionsExpiredBefore(ctx context.Context, t time.Time) (int64, error)
}

// ContentStore keeps an application's variables and files.
type ContentStore interface {
	PutVariable(ctx context.Context, v *Variable) error
	DeleteVariable(ctx context.Context, appID, name string) error
	Variables(ctx context.Context, appID string) ([]Variable, error)
	// UploadFile stores the file's (already encrypted, if it is) contents
	// from r and then its metadata; size and hash describe the plain text.
	UploadFile(ctx context.Context, f *File, r io.Reader) error
	Files(ctx context.Context, appID string) ([]File, error)
	FileByID(ctx context.Context, fileID string) (*File, error)
	// OpenFile returns the stored contents of a file from byte offset on.
	OpenFile(ctx context.Context, fileID string, offset int64) (io.ReadCloser, error)
	DeleteFile(ctx context.Context, fileID string) error
}

// Store is everything the Service needs from storage.
type Store interface {
	AppStore
	UserStore
	BanStore
	LoginStore
	ActivationLedger
	LicenseStore
	DeviceStore
	SessionStore
	ContentStore
}
