package wire

// The bodies of the client API.

// SignUpRequest is the body of POST /sign_up.
type SignUpRequest struct {
	Username   string `json:"username"`
	Password   string `json:"password"`
	HardwareID string `json:"hardware_id"`
}

// LicenseSignUpRequest is the body of POST /sign_up_with_license_code.
type LicenseSignUpRequest struct {
	Code       string `json:"code"`
	HardwareID string `json:"hardware_id"`
}

// LoginRequest is the body of POST /auth/login.
type LoginRequest struct {
	Credentials *LoginCredentials `json:"credentials"`
	HardwareID  string            `json:"hardware_id"`
}

// LoginCredentials are either a username and password or a license code.
type LoginCredentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
	Code     string `json:"code"`
}

// Session is the answer of POST /auth/login.
type Session struct {
	SessionToken string `json:"session_token"`
	ExpiresAt    string `json:"expires_at"`
}

// ActivateLicenseRequest is the body of POST /activate_license.
type ActivateLicenseRequest struct {
	Code     string `json:"code"`
	Username string `json:"username"`
	Password string `json:"password"`
}

// ChangePasswordRequest is the body of POST /auth/change_password.
type ChangePasswordRequest struct {
	Username    string `json:"username"`
	OldPassword string `json:"old_password"`
	NewPassword string `json:"new_password"`
	// HardwareID is the device the change is made from, required when the
	// application has device authentication (or sent as x-hardware-id).
	HardwareID string `json:"hardware_id,omitempty"`
}

// Membership is a user's membership as both APIs show it.
type Membership struct {
	IsActive   bool `json:"is_active"`
	IsLifetime bool `json:"is_lifetime"`
	// ExpiresAt is null when no time was ever added.
	ExpiresAt *string `json:"expires_at"`
}

// User is a user as the sign-ups and the application context show it
// (specification 2.1).
type User struct {
	ID         string     `json:"id"`
	Username   string     `json:"username"`
	Membership Membership `json:"membership"`
}

// Variable is an application variable.
type Variable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ListName implements Listable.
func (Variable) ListName() string { return "variables" }

// File is a file as the application context lists it.
type File struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	MimeType    string `json:"mime_type"`
	IsEncrypted bool   `json:"is_encrypted"`
}

// Application is the application inside the application context
// (specification 2.3).
type Application struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Variables []Variable `json:"variables"`
	Files     []File     `json:"files"`
}

// AppContext is the answer of GET /app_context; User is null for an
// anonymous request.
type AppContext struct {
	Application Application `json:"application"`
	User        *User       `json:"user"`
}

// Activation is an activation record (specification 2.4); the management
// API shows a user's ledger in the same shape.
type Activation struct {
	ID         string `json:"id"`
	OccurredAt string `json:"occurred_at"`
	// Minutes is null for a lifetime grant or revocation.
	Minutes               *int64 `json:"minutes"`
	GrantsLifetimeAccess  bool   `json:"grants_lifetime_access"`
	RevokesLifetimeAccess bool   `json:"revokes_lifetime_access"`
	// LicenseID is null for an administrator's grant.
	LicenseID *string `json:"license_id"`
	// Type is "license" or "grant".
	Type string `json:"type"`
}

// OfflineToken is the answer of POST /auth/offline_token.
type OfflineToken struct {
	// Token is aat1.<payload>.<signature> (docs/api.md).
	Token string `json:"token"`
	// ValidUntil is when the token stops being valid (RFC 3339).
	ValidUntil string `json:"valid_until"`
}
