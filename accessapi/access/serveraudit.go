package access

// The server's own audit log: what administrators do to the server rather
// than to one application (administrators, their TOTP, dashboard sign-ins
// and sign-outs, the throttling of dashboard sign-ins) and what moves the
// whole store (export, import, backup). Its entries are audit entries of
// the application ID ServerAuditLog, listed like an application's.

// ServerAuditLog is the application ID of the server's own audit log.
const ServerAuditLog = ""

// The server's events: Target is the administrator's username, or the
// backup's path.
const (
	EventAdminCreated      EventKind = "admin.created"
	EventAdminDeleted      EventKind = "admin.deleted"
	EventAdminTOTPEnabled  EventKind = "admin.totp_enabled"
	EventAdminTOTPDisabled EventKind = "admin.totp_disabled"
	// EventAdminPasswordSet: the operator set an administrator's password.
	EventAdminPasswordSet EventKind = "admin.password_set"
	EventAdminSignedIn    EventKind = "admin.signed_in"
	EventAdminSignedOut   EventKind = "admin.signed_out"
	// EventStoreExported: the whole store was read out (After counts the
	// records per type).
	EventStoreExported EventKind = "store.exported"
	// EventStoreImported: an export was read into the empty store (After
	// counts the records per type).
	EventStoreImported EventKind = "store.imported"
	// EventStoreBackedUp: the embedded database was copied to the path in
	// Target.
	EventStoreBackedUp EventKind = "store.backed_up"
)

// serverKinds are the events of the server's audit log.
var serverKinds = map[EventKind]bool{
	EventAdminCreated: true, EventAdminDeleted: true, EventAdminTOTPEnabled: true, EventAdminTOTPDisabled: true,
	EventAdminPasswordSet: true, EventAdminSignedIn: true, EventAdminSignedOut: true,
	EventStoreExported: true, EventStoreImported: true, EventStoreBackedUp: true,
}

// auditLogOf is the log an event's entry goes to: its application's, the
// server's for the server's events and for the throttling of dashboard
// sign-ins; ok is false for an event of neither.
func auditLogOf(e Event) (appID string, ok bool) {
	switch {
	case serverKinds[e.Kind]:
		return ServerAuditLog, true
	case e.AppID == adminThrottleApp.ID:
		return ServerAuditLog, e.Kind == EventLoginThrottled
	case e.AppID != "":
		return e.AppID, auditedKinds[e.Kind]
	}
	return "", false
}

// statsOf is what the audit log shows of an export or import: its
// records by type.
func statsOf(st ExportStats) map[string]any {
	records := make(map[string]int64, len(st))
	for t, n := range st {
		if t != RecordHeader && t != RecordEnd {
			records[string(t)] = n
		}
	}
	return map[string]any{"records": records}
}
