package access

import "time"

// App is a client application registered with App Access.
type App struct {
	ID                string
	Name              string
	APIKey            string
	SecretHash        string
	DeviceAuth        bool
	AnonymousAccess   bool
	MaxDevices        int
	MinPasswordLength int
	SessionTTL        time.Duration
	// TokenRequiresHardwareID makes x-hardware-id required on token
	// requests when DeviceAuth is on (a token always refuses another device).
	TokenRequiresHardwareID bool
	// MaxSessions caps a user's open sessions: a login past it ends the
	// oldest. 0 means DefaultMaxSessions.
	MaxSessions int
	// Throttle overrides the configured throttling thresholds for this
	// application; zero fields keep the configured ones.
	Throttle ThrottlePolicy
	// OfflineTokenTTL is how long an offline license token is valid; 0
	// means DefaultOfflineTokenTTL.
	OfflineTokenTTL time.Duration
	CreatedAt       time.Time
}

// User is an end user of one application. PasswordHash is empty for users
// created from a license code.
type User struct {
	ID           string
	AppID        string
	Username     string
	PasswordHash string
	CreatedAt    time.Time
}

// Ban records that a user is banned.
type Ban struct {
	UserID string
	Reason string
	At     time.Time
}

// LastLogin is where and when a user last logged in.
type LastLogin struct {
	UserID string
	IP     string
	At     time.Time
}

// Device is a hardware id registered for a user in one of its device slots.
type Device struct {
	UserID       string
	AppID        string
	Slot         int
	HardwareID   string
	RegisteredAt time.Time
}

// Session is a logged-in user's token, stored only as a hash.
type Session struct {
	TokenHash  string
	AppID      string
	UserID     string
	HardwareID string
	CreatedAt  time.Time
	ExpiresAt  time.Time
}

// Variable is a named value an application hands to its signed-in users.
type Variable struct {
	AppID string
	Name  string
	Value string
}

// File is a file an application hands to its users; its contents are stored
// separately.
type File struct {
	ID          string
	AppID       string
	Name        string
	MimeType    string
	IsEncrypted bool
	Size        int64
	SHA256      string
	CreatedAt   time.Time
	// KeyID names the file key an encrypted file was sealed with (see
	// FileKeyID), so a wrong key is told before any byte is sent.
	KeyID string
}
