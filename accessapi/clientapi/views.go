package clientapi

import (
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// The JSON shapes of the client API.

// MembershipJSON is a membership as both APIs show it.
type MembershipJSON struct {
	IsActive   bool    `json:"is_active"`
	IsLifetime bool    `json:"is_lifetime"`
	ExpiresAt  *string `json:"expires_at"`
}

type userJSON struct {
	ID         string         `json:"id"`
	Username   string         `json:"username"`
	Membership MembershipJSON `json:"membership"`
}

// RFC3339 formats t in UTC with a Z, at millisecond precision at most.
func RFC3339(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.999Z07:00") }

func optionalTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := RFC3339(*t)
	return &s
}

// MembershipView formats a membership as of now.
func MembershipView(m access.Membership, now time.Time) MembershipJSON {
	return MembershipJSON{IsActive: m.IsActive(now), IsLifetime: m.IsLifetime, ExpiresAt: optionalTime(m.ExpiresAt)}
}

func userView(u *access.UserView, now time.Time) *userJSON {
	if u == nil {
		return nil
	}
	return &userJSON{ID: u.ID, Username: u.Username, Membership: MembershipView(u.Membership, now)}
}

// VariableJSON is an application variable.
type VariableJSON struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// FileJSON is a file as the application context lists it.
type FileJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	MimeType    string `json:"mime_type"`
	IsEncrypted bool   `json:"is_encrypted"`
}

type applicationJSON struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Variables []VariableJSON `json:"variables"`
	Files     []FileJSON     `json:"files"`
}

type appContextJSON struct {
	Application applicationJSON `json:"application"`
	User        *userJSON       `json:"user"`
}

// FileView formats a file's public description.
func FileView(f *access.File) FileJSON {
	return FileJSON{ID: f.ID, Name: f.Name, MimeType: f.MimeType, IsEncrypted: f.IsEncrypted}
}

func applicationView(app *access.App, c *access.AppContent) applicationJSON {
	out := applicationJSON{ID: app.ID, Name: app.Name, Variables: make([]VariableJSON, len(c.Variables)), Files: make([]FileJSON, len(c.Files))}
	for i, v := range c.Variables {
		out.Variables[i] = VariableJSON{Name: v.Name, Value: v.Value}
	}
	for i, f := range c.Files {
		out.Files[i] = FileView(&f)
	}
	return out
}

// ActivationJSON is an activation record (specification 2.4); the admin API
// shows the ledger in the same shape.
type ActivationJSON struct {
	ID                    string  `json:"id"`
	OccurredAt            string  `json:"occurred_at"`
	Minutes               *int64  `json:"minutes"`
	GrantsLifetimeAccess  bool    `json:"grants_lifetime_access"`
	RevokesLifetimeAccess bool    `json:"revokes_lifetime_access"`
	LicenseID             *string `json:"license_id"`
	Type                  string  `json:"type"`
}

// ActivationView formats a ledger entry.
func ActivationView(a *access.Activation) ActivationJSON {
	out := ActivationJSON{ID: a.ID, OccurredAt: RFC3339(a.OccurredAt), Minutes: a.Minutes,
		GrantsLifetimeAccess: a.GrantsLifetimeAccess, RevokesLifetimeAccess: a.RevokesLifetimeAccess, Type: string(a.Type)}
	if a.LicenseID != "" {
		out.LicenseID = &a.LicenseID
	}
	return out
}
