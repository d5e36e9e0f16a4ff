package adminapi

import (
	"cmp"
	"encoding/base64"
	"strings"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// The conversions from the service's values to the wire types.

func appView(a *access.App, secret string) wire.App {
	return wire.App{ID: a.ID, Name: a.Name, APIKey: a.APIKey, APISecret: secret, DeviceAuth: a.DeviceAuth,
		AnonymousAccess: a.AnonymousAccess, MaxDevices: a.MaxDevices, MinPasswordLength: a.MinPasswordLength,
		SessionTTL: shortDuration(a.SessionTTL), TokenRequiresHardwareID: a.TokenRequiresHardwareID,
		MaxSessions: cmp.Or(a.MaxSessions, access.DefaultMaxSessions), Throttle: throttleView(a.Throttle),
		OfflineTokenTTL: shortDuration(cmp.Or(a.OfflineTokenTTL, access.DefaultOfflineTokenTTL)),
		CreatedAt:       httpx.RFC3339(a.CreatedAt)}
}

// SigningKeyViews shows an application's published keys, oldest first;
// the last is active.
func SigningKeyViews(keys []access.SigningKey) []wire.SigningKey {
	out := make([]wire.SigningKey, len(keys))
	for i, k := range keys {
		out[i] = signingKeyView(&k, i == len(keys)-1)
	}
	return out
}

func signingKeyView(k *access.SigningKey, active bool) wire.SigningKey {
	return wire.SigningKey{ID: k.ID, Algorithm: access.SigningAlgorithm, PublicKey: base64.StdEncoding.EncodeToString(k.PublicKey),
		CreatedAt: httpx.RFC3339(k.CreatedAt), Active: active}
}

// throttleView shows an application's throttling overrides, or nil.
func throttleView(p access.ThrottlePolicy) *wire.Throttle {
	if p == (access.ThrottlePolicy{}) {
		return nil
	}
	text := func(d time.Duration) string {
		if d == 0 {
			return ""
		}
		return shortDuration(d)
	}
	return &wire.Throttle{AccountAddressFree: p.AccountAddressFree, AddressFree: p.AddressFree, AccountFree: p.AccountFree,
		CodeFree: p.CodeFree, SignUpsPerAddress: p.SignUpsPerAddress,
		FirstDelay: text(p.FirstDelay), MaxDelay: text(p.MaxDelay), Window: text(p.Window)}
}

// publicAppView is an application without its secret.
func publicAppView(a *access.App) wire.App { return appView(a, "") }

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

func licenseView(l *access.License, code string, use *access.LicenseUse) wire.License {
	out := wire.License{ID: l.ID, Code: code, CodeHint: l.CodeHint, Minutes: l.Grant.Minutes,
		GrantsLifetimeAccess: l.Grant.GrantsLifetimeAccess, RevokesLifetimeAccess: l.Grant.RevokesLifetimeAccess,
		Note: l.Note, CreatedAt: httpx.RFC3339(l.CreatedAt)}
	if use != nil {
		at := httpx.RFC3339(use.OccurredAt)
		out.UsedAt, out.UsedBy = &at, &use.UserID
	}
	return out
}

// licenseStatusView is a stored license, without its code.
func licenseStatusView(st *access.LicenseStatus) wire.License {
	return licenseView(&st.License, "", st.Use)
}

func userSummaryView(u *access.User) wire.UserSummary {
	return wire.UserSummary{ID: u.ID, Username: u.Username, CreatedAt: httpx.RFC3339(u.CreatedAt)}
}

func userDetailView(d *access.UserDetail, now time.Time) wire.UserDetail {
	out := wire.UserDetail{ID: d.ID, Username: d.Username, CreatedAt: httpx.RFC3339(d.CreatedAt),
		Membership:  clientapi.MembershipView(d.Membership, now),
		Devices:     []wire.Device{},
		Activations: []wire.LedgerEntry{},
	}
	if d.Ban != nil {
		out.Banned, out.BanReason = true, &d.Ban.Reason
	}
	for _, dev := range d.Devices {
		out.Devices = append(out.Devices, wire.Device{HardwareID: dev.HardwareID, RegisteredAt: httpx.RFC3339(dev.RegisteredAt)})
	}
	if d.LastLogin != nil {
		at := httpx.RFC3339(d.LastLogin.At)
		out.LastLoginIP, out.LastLoginAt = &d.LastLogin.IP, &at
	}
	for i := range d.Activations {
		out.Activations = append(out.Activations, ledgerEntryView(&d.Activations[i]))
	}
	return out
}

func ledgerEntryView(a *access.Activation) wire.LedgerEntry {
	return wire.LedgerEntry{Activation: clientapi.ActivationView(a), Note: a.Note}
}

// fileInfoView is the client's view of a file and what only administrators
// see.
func fileInfoView(f *access.File) wire.FileInfo {
	return wire.FileInfo{File: clientapi.FileView(f), Size: f.Size, SHA256: f.SHA256, CreatedAt: httpx.RFC3339(f.CreatedAt)}
}
