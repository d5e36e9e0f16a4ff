package access

import (
	"sort"
	"time"
)

// ActivationType tells what added an entry to the ledger.
type ActivationType string

// Activation types.
const (
	ActivationLicense ActivationType = "license" // a license code was activated
	ActivationGrant   ActivationType = "grant"   // an administrator granted time
)

// Activation is one append-only entry of a user's membership ledger.
type Activation struct {
	ID                    string
	AppID                 string
	UserID                string
	Type                  ActivationType
	LicenseID             string // empty for grants
	OccurredAt            time.Time
	Minutes               *int64 // nil for lifetime licenses
	GrantsLifetimeAccess  bool
	RevokesLifetimeAccess bool
	Note                  string
}

// Membership is a user's access state, derived from the ledger.
type Membership struct {
	IsLifetime bool
	ExpiresAt  *time.Time // nil when no time was ever added
}

// IsActive reports whether the membership grants access at now.
func (m Membership) IsActive(now time.Time) bool {
	return m.IsLifetime || (m.ExpiresAt != nil && m.ExpiresAt.After(now))
}

// MembershipOf folds a user's ledger into a membership. Entries apply in the
// order they occurred; an entry listed twice (same ID) counts once, so
// a repaired write can never grant twice.
//
// Each entry, at time t: revokes lifetime access if it says so, grants it if
// it says so, then sets expires_at = max(expires_at, t) + minutes, at most
// MaxExpiry.
func MembershipOf(ledger []Activation) Membership {
	var m Membership
	for _, a := range DistinctActivations(ledger) {
		if a.RevokesLifetimeAccess {
			m.IsLifetime = false
		}
		if a.GrantsLifetimeAccess {
			m.IsLifetime = true
		}
		if a.Minutes != nil && *a.Minutes > 0 {
			base := a.OccurredAt
			if m.ExpiresAt != nil && m.ExpiresAt.After(base) {
				base = *m.ExpiresAt
			}
			end := addMinutes(base, *a.Minutes)
			m.ExpiresAt = &end
		}
	}
	return m
}

// MaxExpiry is the latest expiry a membership can reach: added time that
// would go past it saturates there (it is also the last instant RFC 3339
// can write).
var MaxExpiry = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

// addMinutes returns t plus minutes, saturating at MaxExpiry. It computes in
// seconds, so no amount of minutes can overflow a time.Duration.
func addMinutes(t time.Time, minutes int64) time.Time {
	secs, last := t.Unix(), MaxExpiry.Unix()
	if secs >= last || minutes > (last-secs)/60 {
		return MaxExpiry
	}
	return time.Unix(secs+minutes*60, int64(t.Nanosecond())).UTC()
}

// DistinctActivations returns the ledger's entries in the order they
// occurred, each once. A repair that races the write it repairs may store an
// entry twice; it is one activation.
func DistinctActivations(ledger []Activation) []Activation {
	entries := make([]Activation, 0, len(ledger))
	seen := make(map[string]bool, len(ledger))
	for _, a := range ledger {
		if !seen[a.ID] {
			seen[a.ID] = true
			entries = append(entries, a)
		}
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if !entries[i].OccurredAt.Equal(entries[j].OccurredAt) {
			return entries[i].OccurredAt.Before(entries[j].OccurredAt)
		}
		return entries[i].ID < entries[j].ID
	})
	return entries
}

// maxMinutes bounds one license or grant to about a thousand years; the
// membership arithmetic saturates anyway (addMinutes).
const maxMinutes = 1000 * 366 * 24 * 60

// Grant is what a license or an administrator's grant adds to a membership.
type Grant struct {
	Minutes               *int64
	GrantsLifetimeAccess  bool
	RevokesLifetimeAccess bool
}

// Validate applies the license rules: minutes > 0 unless the grant gives
// lifetime access (then no minutes) or revokes it (then no minutes or > 0);
// granting and revoking at once is invalid.
func (g Grant) Validate() *Error {
	switch {
	case g.GrantsLifetimeAccess && g.RevokesLifetimeAccess:
		return Invalid(FieldError{"revokes_lifetime_access", "cannot both grant and revoke lifetime access"})
	case g.GrantsLifetimeAccess && g.Minutes != nil:
		return Invalid(FieldError{"minutes", "must be null when lifetime access is granted"})
	case g.Minutes == nil && !g.GrantsLifetimeAccess && !g.RevokesLifetimeAccess:
		return Invalid(FieldError{"minutes", "is required unless lifetime access is granted or revoked"})
	case g.Minutes != nil && (*g.Minutes <= 0 || *g.Minutes > maxMinutes):
		return Invalid(FieldError{"minutes", "must be a positive number of minutes, at most 527040000"})
	}
	return nil
}
