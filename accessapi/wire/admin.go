package wire

// The bodies of the management API.

// Health is the answer of GET /app_access/health.
type Health struct {
	Status string `json:"status"`
	Time   string `json:"time"`
}

// AppSettings is the body of POST /apps (Name required) and PATCH
// /apps/{id}; a field left out (null) keeps its current or default value.
type AppSettings struct {
	Name              *string `json:"name,omitempty"`
	DeviceAuth        *bool   `json:"device_auth,omitempty"`
	AnonymousAccess   *bool   `json:"anonymous_access,omitempty"`
	MaxDevices        *int    `json:"max_devices,omitempty"`
	MinPasswordLength *int    `json:"min_password_length,omitempty"`
	// SessionTTL is a duration such as "24h" or "90m".
	SessionTTL *string `json:"session_ttl,omitempty"`
	// TokenRequiresHardwareID makes x-hardware-id required on token
	// requests of a device-authenticated application.
	TokenRequiresHardwareID *bool `json:"token_requires_hardware_id,omitempty"`
	// MaxSessions caps a user's open sessions; the oldest ends.
	MaxSessions *int `json:"max_sessions,omitempty"`
	// Throttle overrides the server's throttling thresholds for this
	// application; it replaces the previous overrides whole.
	Throttle *Throttle `json:"throttle,omitempty"`
	// OfflineTokenTTL is how long an offline license token is valid, a
	// duration such as "72h".
	OfflineTokenTTL *string `json:"offline_token_ttl,omitempty"`
}

// Throttle holds an application's overrides of the throttling thresholds
// (docs/security.md); a field left out keeps the server's value.
type Throttle struct {
	AccountAddressFree int `json:"account_address_free,omitempty"`
	AddressFree        int `json:"address_free,omitempty"`
	AccountFree        int `json:"account_free,omitempty"`
	CodeFree           int `json:"code_free,omitempty"`
	SignUpsPerAddress  int `json:"sign_ups_per_address,omitempty"`
	// FirstDelay, MaxDelay and Window are durations such as "1s" or "1h".
	FirstDelay string `json:"first_delay,omitempty"`
	MaxDelay   string `json:"max_delay,omitempty"`
	Window     string `json:"window,omitempty"`
}

// App is an application. APISecret is set only in the answer of its
// creation.
type App struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	APIKey            string `json:"api_key"`
	APISecret         string `json:"api_secret,omitempty"`
	DeviceAuth        bool   `json:"device_auth"`
	AnonymousAccess   bool   `json:"anonymous_access"`
	MaxDevices        int    `json:"max_devices"`
	MinPasswordLength int    `json:"min_password_length"`
	SessionTTL        string `json:"session_ttl"`
	// TokenRequiresHardwareID makes x-hardware-id required on token
	// requests of a device-authenticated application.
	TokenRequiresHardwareID bool `json:"token_requires_hardware_id"`
	// MaxSessions caps a user's open sessions; the oldest ends.
	MaxSessions int `json:"max_sessions"`
	// Throttle holds the application's throttling overrides, if any.
	Throttle *Throttle `json:"throttle,omitempty"`
	// OfflineTokenTTL is how long an offline license token is valid.
	OfflineTokenTTL string `json:"offline_token_ttl"`
	CreatedAt       string `json:"created_at"`
	// Counts are shown by GET /apps/{id} only.
	Counts *AppCounts `json:"counts,omitempty"`
	// SigningKeys are the published signing keys, shown by GET /apps/{id}
	// only; the active one signs.
	SigningKeys []SigningKey `json:"signing_keys,omitempty"`
}

// SigningKey is the public half of one of an application's signing keys.
type SigningKey struct {
	// ID is the key id: the unpadded base64url of the first 12 bytes of
	// the public key's SHA-256.
	ID        string `json:"id"`
	Algorithm string `json:"algorithm"`
	// PublicKey is the 32-byte Ed25519 public key in standard base64.
	PublicKey string `json:"public_key"`
	CreatedAt string `json:"created_at"`
	// Active tells the key that signs now.
	Active bool `json:"active"`
}

// AppCounts are an application's totals, read in constant time.
type AppCounts struct {
	Licenses       int64 `json:"licenses"`
	LicensesUsed   int64 `json:"licenses_used"`
	LicensesUnused int64 `json:"licenses_unused"`
	Users          int64 `json:"users"`
	// ActiveMembers are the users whose membership is active now.
	ActiveMembers int64 `json:"active_members"`
}

// Activity is an application's sign-ups and license activations per UTC
// day, oldest first, ending today.
type Activity struct {
	Days []ActivityDay `json:"days"`
}

// ActivityDay is one UTC day of an Activity.
type ActivityDay struct {
	// Day is the date, YYYY-MM-DD.
	Day string `json:"day"`
	// SignUps are the users created that day who still exist.
	SignUps int64 `json:"sign_ups"`
	// Activations are the licenses used that day, sign-ups included.
	Activations int64 `json:"activations"`
}

// ListName implements Listable.
func (App) ListName() string { return "apps" }

// SecretRotation is the answer of POST /apps/{id}/rotate_secret.
type SecretRotation struct {
	APISecret string `json:"api_secret"`
}

// LicenseRequest is the body of POST /apps/{id}/licenses: Count new codes
// (default 1), or the given Codes, never both.
type LicenseRequest struct {
	Count                 *int     `json:"count,omitempty"`
	Minutes               *int64   `json:"minutes,omitempty"`
	GrantsLifetimeAccess  bool     `json:"grants_lifetime_access"`
	RevokesLifetimeAccess bool     `json:"revokes_lifetime_access"`
	Note                  string   `json:"note"`
	Codes                 []string `json:"codes,omitempty"`
}

// IssuedLicenses is the answer of POST /apps/{id}/licenses: the only time
// the codes are shown in full.
type IssuedLicenses struct {
	Licenses []License `json:"licenses"`
}

// LicenseLookup is the body of POST /apps/{id}/licenses/lookup, which
// finds a license by its code without the code in the request URI.
type LicenseLookup struct {
	Code string `json:"code"`
}

// License is a license code's record. Code is set only when the license is
// issued; CodeHint shows its last four characters.
type License struct {
	ID                    string `json:"id"`
	Code                  string `json:"code,omitempty"`
	CodeHint              string `json:"code_hint"`
	Minutes               *int64 `json:"minutes"`
	GrantsLifetimeAccess  bool   `json:"grants_lifetime_access"`
	RevokesLifetimeAccess bool   `json:"revokes_lifetime_access"`
	Note                  string `json:"note"`
	CreatedAt             string `json:"created_at"`
	// UsedAt and UsedBy are null while the license is unused.
	UsedAt *string `json:"used_at"`
	UsedBy *string `json:"used_by"`
}

// ListName implements Listable.
func (License) ListName() string { return "licenses" }

// UserSummary is a user in a listing.
type UserSummary struct {
	ID        string `json:"id"`
	Username  string `json:"username"`
	CreatedAt string `json:"created_at"`
}

// ListName implements Listable.
func (UserSummary) ListName() string { return "users" }

// Device is a hardware id registered for a user.
type Device struct {
	HardwareID   string `json:"hardware_id"`
	RegisteredAt string `json:"registered_at"`
}

// LedgerEntry is an activation in a user's ledger, with the
// administrator's note of a grant.
type LedgerEntry struct {
	Activation
	Note string `json:"note,omitempty"`
}

// ListName implements Listable.
func (LedgerEntry) ListName() string { return "activations" }

// UserDetail is everything an administrator sees about a user.
type UserDetail struct {
	ID          string        `json:"id"`
	Username    string        `json:"username"`
	Membership  Membership    `json:"membership"`
	Banned      bool          `json:"banned"`
	BanReason   *string       `json:"ban_reason"`
	Devices     []Device      `json:"devices"`
	LastLoginIP *string       `json:"last_login_ip"`
	LastLoginAt *string       `json:"last_login_at"`
	CreatedAt   string        `json:"created_at"`
	Activations []LedgerEntry `json:"activations"`
}

// BanRequest is the optional body of POST .../users/{id}/ban.
type BanRequest struct {
	Reason string `json:"reason"`
}

// GrantRequest is the body of POST .../users/{id}/grant: minutes, or
// lifetime access granted or revoked, by the license rules.
type GrantRequest struct {
	Minutes               *int64 `json:"minutes,omitempty"`
	GrantsLifetimeAccess  bool   `json:"grants_lifetime_access"`
	RevokesLifetimeAccess bool   `json:"revokes_lifetime_access"`
	Note                  string `json:"note"`
}

// PasswordReset is the body of POST .../users/{id}/password: the user's
// new password, set by an administrator; the user's sessions end.
type PasswordReset struct {
	Password string `json:"password"`
}

// VariableValue is the body of PUT .../variables/{name}; Value is required.
type VariableValue struct {
	Value *string `json:"value"`
}

// FileInfo is a file as the management API shows it: the client's view and
// what only administrators see.
type FileInfo struct {
	File
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256"`
	CreatedAt string `json:"created_at"`
}

// ListName implements Listable.
func (FileInfo) ListName() string { return "files" }
