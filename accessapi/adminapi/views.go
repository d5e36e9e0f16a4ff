package adminapi

import (
	"cmp"
	"strings"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
)

type appJSON struct {
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
	TokenRequiresHardwareID bool   `json:"token_requires_hardware_id"`
	MaxSessions             int    `json:"max_sessions"`
	CreatedAt               string `json:"created_at"`
}

func appView(a *access.App, secret string) appJSON {
	return appJSON{ID: a.ID, Name: a.Name, APIKey: a.APIKey, APISecret: secret, DeviceAuth: a.DeviceAuth,
		AnonymousAccess: a.AnonymousAccess, MaxDevices: a.MaxDevices, MinPasswordLength: a.MinPasswordLength,
		SessionTTL: shortDuration(a.SessionTTL), TokenRequiresHardwareID: a.TokenRequiresHardwareID,
		MaxSessions: cmp.Or(a.MaxSessions, access.DefaultMaxSessions),
		CreatedAt:   clientapi.RFC3339(a.CreatedAt)}
}

// shortDuration formats d as time.ParseDuration reads it, without zero
// units: 24h, 1h30m, 90s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

type licenseJSON struct {
	ID                    string  `json:"id"`
	Code                  string  `json:"code,omitempty"`
	CodeHint              string  `json:"code_hint"`
	Minutes               *int64  `json:"minutes"`
	GrantsLifetimeAccess  bool    `json:"grants_lifetime_access"`
	RevokesLifetimeAccess bool    `json:"revokes_lifetime_access"`
	Note                  string  `json:"note"`
	CreatedAt             string  `json:"created_at"`
	UsedAt                *string `json:"used_at"`
	UsedBy                *string `json:"used_by"`
}

func licenseView(l *access.License, code string, use *access.LicenseUse) licenseJSON {
	out := licenseJSON{ID: l.ID, Code: code, CodeHint: l.CodeHint, Minutes: l.Grant.Minutes,
		GrantsLifetimeAccess: l.Grant.GrantsLifetimeAccess, RevokesLifetimeAccess: l.Grant.RevokesLifetimeAccess,
		Note: l.Note, CreatedAt: clientapi.RFC3339(l.CreatedAt)}
	if use != nil {
		at := clientapi.RFC3339(use.OccurredAt)
		out.UsedAt, out.UsedBy = &at, &use.UserID
	}
	return out
}

type userSummaryJSON struct {
	ID        string `json:"id"`
	Username  string `json:"username"`
	CreatedAt string `json:"created_at"`
}

type deviceJSON struct {
	HardwareID   string `json:"hardware_id"`
	RegisteredAt string `json:"registered_at"`
}

type activationJSON struct {
	clientapi.ActivationJSON
	Note string `json:"note,omitempty"`
}

type userDetailJSON struct {
	ID          string                   `json:"id"`
	Username    string                   `json:"username"`
	Membership  clientapi.MembershipJSON `json:"membership"`
	Banned      bool                     `json:"banned"`
	BanReason   *string                  `json:"ban_reason"`
	Devices     []deviceJSON             `json:"devices"`
	LastLoginIP *string                  `json:"last_login_ip"`
	LastLoginAt *string                  `json:"last_login_at"`
	CreatedAt   string                   `json:"created_at"`
	Activations []activationJSON         `json:"activations"`
}

func userDetailView(d *access.UserDetail, now time.Time) userDetailJSON {
	out := userDetailJSON{ID: d.ID, Username: d.Username, CreatedAt: clientapi.RFC3339(d.CreatedAt),
		Membership:  clientapi.MembershipView(d.Membership, now),
		Devices:     []deviceJSON{},
		Activations: []activationJSON{},
	}
	if d.Ban != nil {
		out.Banned, out.BanReason = true, &d.Ban.Reason
	}
	for _, dev := range d.Devices {
		out.Devices = append(out.Devices, deviceJSON{HardwareID: dev.HardwareID, RegisteredAt: clientapi.RFC3339(dev.RegisteredAt)})
	}
	if d.LastLogin != nil {
		at := clientapi.RFC3339(d.LastLogin.At)
		out.LastLoginIP, out.LastLoginAt = &d.LastLogin.IP, &at
	}
	for i := range d.Activations {
		out.Activations = append(out.Activations, activationView(&d.Activations[i]))
	}
	return out
}

func activationView(a *access.Activation) activationJSON {
	return activationJSON{ActivationJSON: clientapi.ActivationView(a), Note: a.Note}
}

// fileJSON is the client's view of a file and what only administrators see.
type fileJSON struct {
	clientapi.FileJSON
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256"`
	CreatedAt string `json:"created_at"`
}

func fileView(f *access.File) fileJSON {
	return fileJSON{FileJSON: clientapi.FileView(f), Size: f.Size, SHA256: f.SHA256, CreatedAt: clientapi.RFC3339(f.CreatedAt)}
}
