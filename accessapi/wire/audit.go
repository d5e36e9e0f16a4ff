package wire

import "encoding/json"

// AuditEntry is an entry of an application's audit log, as GET
// /apps/{id}/audit lists them, or of the server's own (GET /audit): who
// did what to which target, and when. It never holds a secret, password,
// license code or token.
type AuditEntry struct {
	// ID is a UUIDv7 (ordered by time); it is the cursor of the listing.
	ID string `json:"id"`
	// Time is when the change was stored (RFC 3339, UTC).
	Time string `json:"time"`
	// AppID is the application whose log holds the entry; null in the
	// server's own log.
	AppID *string `json:"app_id"`
	// Principal is who acted.
	Principal Principal `json:"principal"`
	// Action is the event kind (such as "user.banned") or content change
	// (such as "variable.set").
	Action string `json:"action"`
	// UserID is the user the entry is about; null when none.
	UserID *string `json:"user_id"`
	// Target names what changed: a user, license, file or application ID,
	// a variable name, a hashed account key or a client address.
	Target string `json:"target"`
	// Before and After are objects of what the change replaced and what it
	// stored (application settings, a ban's reason, a grant...); null
	// when not relevant.
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
}

// ListName implements Listable.
func (AuditEntry) ListName() string { return "entries" }

// Principal is who acted: kind "admin_endpoint" (named by the caller's
// address), "client" (a client of the application, named by its address)
// or "system"; later a seller key or a dashboard user.
type Principal struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}
