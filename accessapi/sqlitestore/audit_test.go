package sqlitestore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// TestAuditLog_EveryFilterIsServedFromAnIndex reads SQLite's plan of each
// listing: a search of the filter's index, in its order, with no table
// scan and no sort.
func TestAuditLog_EveryFilterIsServedFromAnIndex(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	now := time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		f     access.AuditFilter
		index string
	}{
		{"all", access.AuditFilter{}, "audit_by_app"},
		{"a time range", access.AuditFilter{Since: now, Until: now.Add(time.Hour)}, "audit_by_app"},
		{"an action", access.AuditFilter{Action: "user.banned", Since: now}, "audit_by_action"},
		{"a user", access.AuditFilter{UserID: "u1", Until: now}, "audit_by_user"},
		{"an action and a user", access.AuditFilter{Action: "user.banned", UserID: "u1"}, "audit_by_action"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, args := auditQuery("app", tt.f, "", 100)
			rows, err := s.query(ctx, `EXPLAIN QUERY PLAN `+q, args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			got := strings.Join(plan, "; ")
			if !strings.Contains(got, "SEARCH audit_log USING INDEX "+tt.index+" ") || strings.Contains(got, "SCAN") || strings.Contains(got, "TEMP B-TREE") {
				t.Fatalf("plan %q, want a search of %s without a scan or sort", got, tt.index)
			}
		})
	}
}
