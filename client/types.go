package client

import "time"

// User is a user as the sign-ups and the application context show it.
type User struct {
	ID         string     `json:"id"`
	Username   string     `json:"username"`
	Membership Membership `json:"membership"`
}

// Membership is a user's access.
type Membership struct {
	IsActive   bool `json:"is_active"`
	IsLifetime bool `json:"is_lifetime"`
	// ExpiresAt is nil when no time was ever added.
	ExpiresAt *time.Time `json:"expires_at"`
}

// Session is an open session; send Token with the Token auth.
type Session struct {
	Token     string    `json:"session_token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Activation is the record of a license activation.
type Activation struct {
	ID         string    `json:"id"`
	OccurredAt time.Time `json:"occurred_at"`
	// Minutes is nil for a lifetime grant or revocation.
	Minutes               *int64 `json:"minutes"`
	GrantsLifetimeAccess  bool   `json:"grants_lifetime_access"`
	RevokesLifetimeAccess bool   `json:"revokes_lifetime_access"`
	LicenseID             string `json:"license_id"`
	Type                  string `json:"type"`
}

// AppContext is the application and the current user.
type AppContext struct {
	Application Application `json:"application"`
	// User is nil for an anonymous request.
	User *User `json:"user"`
}

// Application is the application's public content.
type Application struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Variables []Variable `json:"variables"`
	Files     []File     `json:"files"`
}

// Variable is an application variable.
type Variable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Variable returns the value of the variable name and whether it exists.
func (a Application) Variable(name string) (string, bool) {
	for _, v := range a.Variables {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}

// File is a file of the application, for Download.
type File struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	MimeType    string `json:"mime_type"`
	IsEncrypted bool   `json:"is_encrypted"`
}
