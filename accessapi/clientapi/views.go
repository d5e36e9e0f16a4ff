package clientapi

import (
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// The conversions from the service's values to the wire types; the
// management API shares the ones that are exported.

// MembershipView formats a membership as of now.
func MembershipView(m access.Membership, now time.Time) wire.Membership {
	return wire.Membership{IsActive: m.IsActive(now), IsLifetime: m.IsLifetime, ExpiresAt: httpx.OptionalRFC3339(m.ExpiresAt)}
}

func userView(u *access.UserView, now time.Time) *wire.User {
	if u == nil {
		return nil
	}
	v := userValue(u, now)
	return &v
}

// userValue formats a user as of now.
func userValue(u *access.UserView, now time.Time) wire.User {
	return wire.User{ID: u.ID, Username: u.Username, Membership: MembershipView(u.Membership, now)}
}

// VariableView formats an application variable.
func VariableView(v *access.Variable) wire.Variable {
	return wire.Variable{Name: v.Name, Value: v.Value}
}

// FileView formats a file's public description.
func FileView(f *access.File) wire.File {
	return wire.File{ID: f.ID, Name: f.Name, MimeType: f.MimeType, IsEncrypted: f.IsEncrypted}
}

func applicationView(app *access.App, c *access.AppContent) wire.Application {
	out := wire.Application{ID: app.ID, Name: app.Name, Variables: make([]wire.Variable, len(c.Variables)), Files: make([]wire.File, len(c.Files))}
	for i := range c.Variables {
		out.Variables[i] = VariableView(&c.Variables[i])
	}
	for i := range c.Files {
		out.Files[i] = FileView(&c.Files[i])
	}
	return out
}

// ActivationView formats a ledger entry.
func ActivationView(a *access.Activation) wire.Activation {
	out := wire.Activation{ID: a.ID, OccurredAt: httpx.RFC3339(a.OccurredAt), Minutes: a.Minutes,
		GrantsLifetimeAccess: a.GrantsLifetimeAccess, RevokesLifetimeAccess: a.RevokesLifetimeAccess, Type: string(a.Type)}
	if a.LicenseID != "" {
		out.LicenseID = &a.LicenseID
	}
	return out
}
