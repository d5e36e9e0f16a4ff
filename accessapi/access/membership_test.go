package access

import (
	"testing"
	"time"
)

func minutes(n int64) *int64 { return &n }

func TestMembershipOf_AppliesTheLedgerInOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	exp := func(m int) *time.Time { x := at(m); return &x }
	tests := []struct {
		name   string
		ledger []Activation
		want   Membership
	}{
		{"empty ledger is inactive", nil, Membership{}},
		{"one license adds its minutes from the activation time",
			[]Activation{{ID: "a", OccurredAt: at(0), Minutes: minutes(60)}},
			Membership{ExpiresAt: exp(60)}},
		{"a second license extends the running membership",
			[]Activation{{ID: "a", OccurredAt: at(0), Minutes: minutes(60)}, {ID: "b", OccurredAt: at(30), Minutes: minutes(60)}},
			Membership{ExpiresAt: exp(120)}},
		{"a license after expiry starts from its own time",
			[]Activation{{ID: "a", OccurredAt: at(0), Minutes: minutes(60)}, {ID: "b", OccurredAt: at(100), Minutes: minutes(10)}},
			Membership{ExpiresAt: exp(110)}},
		{"order of the slice does not matter",
			[]Activation{{ID: "b", OccurredAt: at(100), Minutes: minutes(10)}, {ID: "a", OccurredAt: at(0), Minutes: minutes(60)}},
			Membership{ExpiresAt: exp(110)}},
		{"a duplicated entry counts once",
			[]Activation{{ID: "a", OccurredAt: at(0), Minutes: minutes(60)}, {ID: "a", OccurredAt: at(0), Minutes: minutes(60)}},
			Membership{ExpiresAt: exp(60)}},
		{"lifetime grant",
			[]Activation{{ID: "a", OccurredAt: at(0), GrantsLifetimeAccess: true}},
			Membership{IsLifetime: true}},
		{"revoke ends lifetime and adds its minutes",
			[]Activation{{ID: "a", OccurredAt: at(0), GrantsLifetimeAccess: true}, {ID: "b", OccurredAt: at(10), RevokesLifetimeAccess: true, Minutes: minutes(5)}},
			Membership{ExpiresAt: exp(15)}},
		{"time added during lifetime still counts after a revoke",
			[]Activation{{ID: "a", OccurredAt: at(0), Minutes: minutes(60)}, {ID: "b", OccurredAt: at(1), GrantsLifetimeAccess: true}, {ID: "c", OccurredAt: at(2), RevokesLifetimeAccess: true}},
			Membership{ExpiresAt: exp(60)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MembershipOf(tt.ledger)
			if got.IsLifetime != tt.want.IsLifetime || (got.ExpiresAt == nil) != (tt.want.ExpiresAt == nil) ||
				(got.ExpiresAt != nil && !got.ExpiresAt.Equal(*tt.want.ExpiresAt)) {
				t.Fatalf("got %+v (expires %v), want %+v (expires %v)", got, got.ExpiresAt, tt.want, tt.want.ExpiresAt)
			}
		})
	}
}

func TestMembership_IsActiveUntilExpiry(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := MembershipOf([]Activation{{ID: "a", OccurredAt: t0, Minutes: minutes(1)}})
	for _, c := range []struct {
		at   time.Time
		want bool
	}{{t0, true}, {t0.Add(59 * time.Second), true}, {t0.Add(time.Minute), false}} {
		if got := m.IsActive(c.at); got != c.want {
			t.Errorf("IsActive(%v) = %v, want %v", c.at, got, c.want)
		}
	}
	if !(Membership{IsLifetime: true}).IsActive(t0) {
		t.Error("lifetime membership is not active")
	}
}

func TestGrant_ValidateAppliesTheLicenseRules(t *testing.T) {
	tests := []struct {
		name  string
		grant Grant
		ok    bool
	}{
		{"minutes", Grant{Minutes: minutes(10)}, true},
		{"lifetime", Grant{GrantsLifetimeAccess: true}, true},
		{"revoke alone", Grant{RevokesLifetimeAccess: true}, true},
		{"revoke with minutes", Grant{RevokesLifetimeAccess: true, Minutes: minutes(5)}, true},
		{"nothing", Grant{}, false},
		{"zero minutes", Grant{Minutes: minutes(0)}, false},
		{"negative minutes", Grant{Minutes: minutes(-1)}, false},
		{"too many minutes", Grant{Minutes: minutes(maxMinutes + 1)}, false},
		{"lifetime with minutes", Grant{GrantsLifetimeAccess: true, Minutes: minutes(5)}, false},
		{"grant and revoke", Grant{GrantsLifetimeAccess: true, RevokesLifetimeAccess: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.grant.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestMembershipOf_LargeGrantsNeverWrapAround(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// 153,722,867 minutes is the last whole number of minutes a
	// time.Duration holds; one more used to overflow into the past.
	const durationLimit = int64(1<<63-1) / int64(time.Minute)
	tests := []struct {
		name    string
		minutes []int64
		want    time.Time
	}{
		{"the last minute a Duration holds", []int64{durationLimit}, time.Unix(t0.Unix()+durationLimit*60, 0).UTC()},
		{"one minute more", []int64{durationLimit + 1}, time.Unix(t0.Unix()+(durationLimit+1)*60, 0).UTC()},
		{"200,000,000 minutes", []int64{200_000_000}, time.Unix(t0.Unix()+200_000_000*60, 0).UTC()},
		{"the largest grant the API accepts", []int64{maxMinutes}, time.Unix(t0.Unix()+maxMinutes*60, 0).UTC()},
		{"grants summing past year 9999 saturate", []int64{maxMinutes, maxMinutes, maxMinutes, maxMinutes, maxMinutes,
			maxMinutes, maxMinutes, maxMinutes, maxMinutes}, MaxExpiry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ledger []Activation
			for i, m := range tt.minutes {
				ledger = append(ledger, Activation{ID: string(rune('a' + i)), OccurredAt: t0, Minutes: minutes(m)})
			}
			got := MembershipOf(ledger)
			if got.ExpiresAt == nil || !got.ExpiresAt.Equal(tt.want) {
				t.Fatalf("expires at %v, want %v", got.ExpiresAt, tt.want)
			}
			if !got.IsActive(t0) || !got.ExpiresAt.After(t0) {
				t.Fatalf("membership of %v minutes is not active: %+v", tt.minutes, got)
			}
			if _, err := got.ExpiresAt.MarshalJSON(); err != nil {
				t.Fatalf("expiry cannot be written as JSON: %v", err)
			}
		})
	}
}
