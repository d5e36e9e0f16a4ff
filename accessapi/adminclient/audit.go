package adminclient

import (
	"context"
	"time"

	"github.com/appaccess/appaccess/accessapi/wire"
)

// AuditQuery selects a page of an application's audit log.
type AuditQuery struct {
	// Action keeps the entries of one action, such as "user.banned".
	Action string
	// UserID keeps the entries about one user.
	UserID string
	// Since (inclusive) and Until (exclusive) bound the entries' times;
	// zero means unbounded.
	Since, Until time.Time
	// After is the Next cursor of the previous page.
	After string
	// Limit is the page size, 1 to 1000; 0 takes the server's default.
	Limit int
}

// AuditLog calls GET /apps/{app}/audit, or GET /audit (the server's own
// log) when appID is empty.
func (c *Client) AuditLog(ctx context.Context, appID string, q AuditQuery) (*wire.Page[wire.AuditEntry], error) {
	v := pageValues(q.After, q.Limit)
	if q.Action != "" {
		v.Set("action", q.Action)
	}
	if q.UserID != "" {
		v.Set("user", q.UserID)
	}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
	}
	if !q.Until.IsZero() {
		v.Set("until", q.Until.UTC().Format(time.RFC3339Nano))
	}
	var out wire.Page[wire.AuditEntry]
	path := "/audit"
	if appID != "" {
		path = "/apps/" + seg(appID) + "/audit"
	}
	return &out, c.get(ctx, path, v, &out)
}
