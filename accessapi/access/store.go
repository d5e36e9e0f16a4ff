package access

import (
	"context"
	"io"
	"time"
)

// The storage interfaces. Every method that inserts returns ErrDuplicate
// when the unique key is taken, and every single-record read returns
// ErrNotFound when there is none. A store with transactions (SQLite) makes
// each method atomic; a store without them (MongoDB) relies only on unique
// inserts: no method reads, changes and writes back a shared document.
// Records that belong to a user (ledger entries, devices, sessions, bans,
// last logins) are written only for a user that exists; a store may refuse
// others.
//
// Listings are pages in the order of an index, continued by an opaque
// cursor; their cost is proportional to the page, not to the data.

// AppStore keeps applications.
type AppStore interface {
	InsertApp(ctx context.Context, app *App) error
	ReplaceApp(ctx context.Context, app *App) error
	// DeleteApp removes an application and its seller keys, so that no key
	// of a deleted application is left to authenticate (the audit log
	// stays). A store without transactions deletes the keys first: a crash
	// between the two leaves the application without keys, never keys
	// without their application.
	DeleteApp(ctx context.Context, appID string) error
	AppByID(ctx context.Context, appID string) (*App, error)
	AppByKey(ctx context.Context, apiKey string) (*App, error)
	Apps(ctx context.Context) ([]App, error)
	// AppCounts counts an application's licenses, users and the members
	// whose membership is active at now.
	AppCounts(ctx context.Context, appID string, now time.Time) (AppCounts, error)
	// ActivityByDay counts, for each of days UTC days from the day of
	// from, the application's users created that day (that still exist)
	// and its licenses used that day, in day order. Its cost grows with
	// days, not with the data.
	ActivityByDay(ctx context.Context, appID string, from time.Time, days int) ([]DayActivity, error)
}

// DayActivity is what happened to an application on one UTC day.
type DayActivity struct {
	// Day is the day's start (UTC midnight).
	Day time.Time
	// SignUps are the users created that day who still exist.
	SignUps int64
	// Activations are the licenses used that day (sign-ups with a code
	// included).
	Activations int64
}

// UserStore keeps users. A user is two records: the account, unique by
// (application, username key), which holds the credentials, and the user by
// ID. The account is written first and is enough to recreate the other.
type UserStore interface {
	InsertAccount(ctx context.Context, u *User) error
	AccountByName(ctx context.Context, appID, usernameKey string) (*User, error)
	DeleteAccount(ctx context.Context, appID, usernameKey string) error
	// SetAccountPassword replaces an account's password hash; the
	// account's owner (or an administrator) is its only writer.
	SetAccountPassword(ctx context.Context, appID, usernameKey, passwordHash string) error
	// UpgradeAccountPassword replaces an account's password hash with
	// newHash only while it is still oldHash (a rehash of the same password
	// under today's parameters must not undo a change made meanwhile);
	// ErrNotFound when it is not, or there is no such account. One
	// conditional write of one record.
	UpgradeAccountPassword(ctx context.Context, appID, usernameKey, oldHash, newHash string) error
	InsertUser(ctx context.Context, u *User) error
	UserByID(ctx context.Context, userID string) (*User, error)
	// Users lists an application's users whose username key starts with
	// prefix, ordered by username key then ID, after the cursor.
	Users(ctx context.Context, appID, prefix string, after UserCursor, limit int) ([]User, error)
	DeleteUser(ctx context.Context, userID string) error
	// MarkUserDeleted leaves a tombstone so that no repair recreates the user.
	MarkUserDeleted(ctx context.Context, userID string) error
	IsUserDeleted(ctx context.Context, userID string) (bool, error)
}

// BanStore keeps bans, one record per banned user.
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
// Each store also keeps a summary of every user's membership, derived from
// the ledger on append, that AppCounts counts active members by.
type ActivationLedger interface {
	// AppendActivation adds an entry to the user's ledger.
	AppendActivation(ctx context.Context, a *Activation) error
	// Ledger returns all entries of a user's ledger.
	Ledger(ctx context.Context, userID string) ([]Activation, error)
	// Activations lists a user's ledger in append order after the cursor.
	Activations(ctx context.Context, userID, after string, limit int) (Page[Activation], error)
	DeleteLedger(ctx context.Context, userID string) error
}

// LicenseFilter selects licenses: Used, when not nil, keeps only used
// (true) or unused (false) ones.
type LicenseFilter struct {
	Used *bool
}

// LicenseStore keeps licenses and their single-use claims.
type LicenseStore interface {
	InsertLicenses(ctx context.Context, ls []License) error
	LicenseByID(ctx context.Context, licenseID string) (*License, error)
	// Licenses lists an application's licenses in ID order after the
	// cursor (a license ID).
	Licenses(ctx context.Context, appID string, f LicenseFilter, after string, limit int) ([]License, error)
	DeleteLicense(ctx context.Context, licenseID string) error
	// InsertLicenseUse claims a license; ErrDuplicate means it is used.
	InsertLicenseUse(ctx context.Context, u *LicenseUse, g Grant) error
	// MarkLicenseUsed records on the license that it was claimed, for the
	// used and unused listings; it is idempotent.
	MarkLicenseUsed(ctx context.Context, licenseID string) error
	LicenseUseByID(ctx context.Context, licenseID string) (*LicenseUse, Grant, error)
	// RedeemLicense writes a whole redemption: ErrDuplicate means the
	// license was used already and nothing was written. A store without
	// transactions implements it with RedeemInOrder.
	RedeemLicense(ctx context.Context, r *Redemption) error
}

// DeviceStore keeps registered devices, one record per (user, slot).
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

// ContentStore keeps an application's variables and files. A file is
// stored in two steps: its contents, then the metadata that makes it
// visible.
type ContentStore interface {
	PutVariable(ctx context.Context, v *Variable) error
	DeleteVariable(ctx context.Context, appID, name string) error
	Variables(ctx context.Context, appID string) ([]Variable, error)
	// PutFileContents stores a file's (already encrypted, if it is)
	// contents, reading r to its end; it returns when they are stored.
	PutFileContents(ctx context.Context, fileID string, r io.Reader) error
	// InsertFile stores a file's metadata once its contents are stored.
	InsertFile(ctx context.Context, f *File) error
	Files(ctx context.Context, appID string) ([]File, error)
	FileByID(ctx context.Context, fileID string) (*File, error)
	// OpenFile returns the stored contents of a file from byte offset on;
	// its cost is proportional to the bytes read.
	OpenFile(ctx context.Context, fileID string, offset int64) (io.ReadCloser, error)
	// DeleteFile removes a file's metadata and contents; ErrNotFound means
	// there was no metadata (any contents are removed all the same).
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
	AttemptStore
	AuditStore
	AdminStore
	SellerKeyStore
	WebhookStore
	SigningKeyStore
	UserStateStore
	ChangeFeed
	EventJournal
}

// AppCounts are an application's totals.
type AppCounts struct {
	Licenses       int64
	LicensesUsed   int64
	LicensesUnused int64
	Users          int64
	// ActiveMembers are the users whose membership is active.
	ActiveMembers int64
}
