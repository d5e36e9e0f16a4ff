package conformance

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
)

func testAuditEntries(t *testing.T, s access.Store) {
	ctx := context.Background()
	e := access.AuditEntry{ID: access.NewAuditID(epoch), At: epoch, AppID: uuid.NewString(),
		Principal: access.Principal{Kind: access.PrincipalAdminEndpoint, Name: "127.0.0.1:5123"},
		Action:    string(access.EventAppChanged), Target: "app", Before: json.RawMessage(`{"name":"Old"}`), After: json.RawMessage(`{"name":"New"}`)}
	must(t, s.AppendAudit(ctx, &e))
	wantErr(t, s.AppendAudit(ctx, &e), access.ErrDuplicate, "appending an entry twice")
	bare := access.AuditEntry{ID: access.NewAuditID(epoch.Add(time.Millisecond)), At: epoch.Add(time.Millisecond), AppID: e.AppID,
		Principal: access.Principal{Kind: access.PrincipalSystem}, Action: string(access.EventUserBanned), UserID: uuid.NewString()}
	must(t, s.AppendAudit(ctx, &bare))
	got, err := s.AuditLog(ctx, e.AppID, access.AuditFilter{}, "", 10)
	must(t, err)
	if len(got) != 2 || !reflect.DeepEqual(got[0], e) || !reflect.DeepEqual(got[1], bare) {
		t.Fatalf("entries %+v, want %+v and %+v", got, e, bare)
	}
}

func testAuditPaging(t *testing.T, s access.Store) {
	ctx := context.Background()
	appID, other := uuid.NewString(), uuid.NewString()
	users := []string{uuid.NewString(), uuid.NewString(), ""}
	actions := []string{"user.banned", "user.unbanned", "variable.set"}
	var all []access.AuditEntry
	for i := range 30 {
		at := epoch.Add(time.Duration(i/2) * time.Minute) // two entries per millisecond
		e := access.AuditEntry{ID: access.NewAuditID(at), At: at, AppID: appID, Principal: access.Principal{Kind: access.PrincipalSystem},
			Action: actions[i%3], UserID: users[(i*7)%3], Target: "t"}
		must(t, s.AppendAudit(ctx, &e))
		all = append(all, e)
		noise := e
		noise.ID, noise.AppID = access.NewAuditID(at), other
		must(t, s.AppendAudit(ctx, &noise))
	}
	slices.SortFunc(all, func(a, b access.AuditEntry) int { return compare(a.ID, b.ID) })
	for _, tt := range []struct {
		name string
		f    access.AuditFilter
	}{
		{"all", access.AuditFilter{}},
		{"action", access.AuditFilter{Action: "user.banned"}},
		{"user", access.AuditFilter{UserID: users[0]}},
		{"action and user", access.AuditFilter{Action: "variable.set", UserID: users[1]}},
		{"since", access.AuditFilter{Since: epoch.Add(4 * time.Minute)}},
		{"until", access.AuditFilter{Until: epoch.Add(9 * time.Minute)}},
		{"action in a time range", access.AuditFilter{Action: "user.unbanned", Since: epoch.Add(2 * time.Minute), Until: epoch.Add(11 * time.Minute)}},
		{"no match", access.AuditFilter{Action: "app.deleted"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for _, e := range all {
				if (tt.f.Action == "" || e.Action == tt.f.Action) && (tt.f.UserID == "" || e.UserID == tt.f.UserID) &&
					(tt.f.Since.IsZero() || !e.At.Before(tt.f.Since)) && (tt.f.Until.IsZero() || e.At.Before(tt.f.Until)) {
					want = append(want, e.ID)
				}
			}
			var got []string
			after := ""
			for range 100 {
				page, err := s.AuditLog(ctx, appID, tt.f, after, 4)
				must(t, err)
				for _, e := range page {
					got = append(got, e.ID)
				}
				if len(page) < 4 {
					break
				}
				after = page[len(page)-1].ID
			}
			if !slices.Equal(got, want) {
				t.Fatalf("visited %d entries %v, want %d %v", len(got), got, len(want), want)
			}
		})
	}
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func testAuditPruning(t *testing.T, s access.Store) {
	ctx := context.Background()
	appID := uuid.NewString()
	for i := range 10 {
		at := epoch.Add(time.Duration(i) * time.Hour)
		must(t, s.AppendAudit(ctx, &access.AuditEntry{ID: access.NewAuditID(at), At: at, AppID: appID,
			Principal: access.Principal{Kind: access.PrincipalSystem}, Action: "app.changed", Target: appID}))
	}
	n, err := s.DeleteAuditBefore(ctx, epoch.Add(4*time.Hour))
	must(t, err)
	if n != 4 {
		t.Fatalf("deleted %d entries, want 4", n)
	}
	left, err := s.AuditLog(ctx, appID, access.AuditFilter{}, "", 100)
	must(t, err)
	if len(left) != 6 || !left[0].At.Equal(epoch.Add(4*time.Hour)) {
		t.Fatalf("left %d entries from %v, want 6 from %v", len(left), left[0].At, epoch.Add(4*time.Hour))
	}
}
