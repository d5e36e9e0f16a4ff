package wire

// The bodies of the administrator and seller key routes.

// NewAdmin is the body of POST /admins.
type NewAdmin struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// Admin describes an administrator; it never carries a secret.
type Admin struct {
	Username    string `json:"username"`
	TOTPEnabled bool   `json:"totp_enabled"`
	CreatedAt   string `json:"created_at"`
}

// TOTPEnrolment is the answer of POST /admins/{admin}/totp: the pending
// secret, shown once, and its otpauth:// URL for an authenticator app.
type TOTPEnrolment struct {
	Secret string `json:"secret"`
	URL    string `json:"url"`
}

// TOTPCode is the body of POST /admins/{admin}/totp/confirm.
type TOTPCode struct {
	Code string `json:"code"`
}

// NewSellerKey is the body of POST /apps/{app}/keys.
type NewSellerKey struct {
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
}

// SellerKey describes a seller key. Key, the secret, is present only in
// the answer that created it.
type SellerKey struct {
	ID         string   `json:"id"`
	AppID      string   `json:"app_id"`
	Name       string   `json:"name"`
	Scopes     []string `json:"scopes"`
	CreatedAt  string   `json:"created_at"`
	LastUsedAt string   `json:"last_used_at,omitempty"`
	Key        string   `json:"key,omitempty"`
}

// ListName implements Listable.
func (Admin) ListName() string { return "admins" }

// ListName implements Listable.
func (SellerKey) ListName() string { return "keys" }
