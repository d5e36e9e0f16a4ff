package openapi

import (
	"maps"
	"slices"
	"strings"

	"github.com/appaccess/appaccess/accessapi/access"
)

// managementCodes are the problem codes the management API answers.
var managementCodes = []access.Code{
	access.CodeValidationFailed, access.CodeNotFound, access.CodeConflict, access.CodePayloadTooLarge,
	access.CodeMethodNotAllowed, access.CodeUnavailable, access.CodeInternal,
}

func pathParam(name, desc string) obj {
	return obj{"name": name, "in": "path", "required": true, "description": desc, "schema": obj{"type": "string"}}
}

func queryParam(name, desc string, schema obj) obj {
	return obj{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
}

// page is the one listing shape: the items under their name and the
// cursor of the next page (always null when the listing is not paged).
func page(list, item string, paged bool) obj {
	next := obj{"type": "null", "description": "Always null: the listing is not paged."}
	if paged {
		next = obj{"type": []string{"string", "null"}, "description": "Pass as ?after= for the next page; null at the end."}
	}
	return closed([]string{list, "next"}, obj{list: arrayOf(schemaRef(item)), "next": next})
}

func settingsProps() obj {
	return obj{
		"name":                       obj{"type": "string", "minLength": 1, "description": "The application's name."},
		"device_auth":                boolean("Require a hardware id and register devices (default false)."),
		"anonymous_access":           boolean("Allow GET /app_context without a user (default false)."),
		"max_devices":                obj{"type": "integer", "minimum": 1, "maximum": 100, "description": "Devices a user may register (default 1)."},
		"min_password_length":        obj{"type": "integer", "minimum": 1, "maximum": 256, "description": "Default 8."},
		"session_ttl":                obj{"type": "string", "description": "A session's lifetime, a duration such as 24h or 90m (1m to 8784h; default 24h)."},
		"token_requires_hardware_id": boolean("Make x-hardware-id required on token requests of a device-authenticated application."),
		"max_sessions":               obj{"type": "integer", "minimum": 1, "description": "A user's open sessions; the oldest ends (default 10)."},
		"throttle":                   schemaRef("Throttle"),
		"offline_token_ttl": obj{"type": "string", "description": "An offline license token's lifetime, a duration such as 72h " +
			"(1m to 8784h; default 72h); a token never outlives the membership."},
	}
}

// refOrNull is a schema reference that may also be null.
func refOrNull(name, desc string) obj {
	return obj{"description": desc, "oneOf": []obj{schemaRef(name), {"type": "null"}}}
}

// auditChange is the union of what an audit entry's before and after hold:
// the settings an application change touched, a ban's reason, a grant or
// a batch of licenses, a deleted user's name, a file, a throttling counter.
func auditChange() obj {
	p := settingsProps()
	more := obj{
		"reason": str("A ban's reason."), "username": str("A deleted user's name."),
		"minutes": integer(""), "grants_lifetime_access": boolean(""), "revokes_lifetime_access": boolean(""), "note": str(""),
		"count": integer("Licenses in a batch."), "first_license_id": uuid(""), "imported": boolean("Whether the codes were imported."),
		"activation_id": uuid(""),
		"mime_type":     str(""), "size": integer(""), "sha256": str(""), "encrypted": boolean(""),
		"counter": str("The throttling counter that began to hold back."), "failures": integer(""),
		"scopes":          str("A seller key's scopes."),
		"url":             str("A webhook endpoint's URL origin (scheme and host, \"/…\" when it has more): a URL can be a secret."),
		"url_sha256":      str("The first 8 bytes of the SHA-256 of a webhook endpoint's URL, in hex: tells a change of URL."),
		"events":          str("A webhook endpoint's events, space separated."),
		"enabled":         boolean("Whether a webhook endpoint is enabled."),
		"overlap_seconds": integer("How long a rotated webhook secret keeps signing."),
		"session_ttl":     str(""),
		"key_id":          str("A signing key's id."), "generation": integer("A signing key's generation."), "algorithm": str(""),
		"records":   obj{"type": "object", "additionalProperties": obj{"type": "integer"}, "description": "An export's or import's records, by type."},
		"complete":  boolean("Whether an export reached its end (what it wrote before a failure is out as well)."),
		"recovered": boolean("Written by the event journal's recovery, after the server that made the change stopped before recording it."),
		"confirmed": boolean("false on a recovered entry whose change the recovery could not confirm in the store: an attempt whose outcome is not known."),
	}
	for k, v := range more {
		p[k] = v
	}
	delete(p, "throttle")
	p["throttle"] = obj{"type": "object", "description": "Throttling overrides, as the management API writes them."}
	for _, v := range p {
		if o := v.(obj); o["description"] == "" {
			delete(o, "description")
		}
	}
	return obj{"type": "object", "properties": p}
}

// throttleSchema is an application's throttling overrides.
func throttleSchema() obj {
	count := func(desc string) obj { return obj{"type": "integer", "minimum": 1, "description": desc} }
	duration := func(desc string) obj {
		return obj{"type": "string", "description": desc + " A duration such as 1s or 1h."}
	}
	return closed(nil, obj{
		"account_address_free": count("Failures of one account from one address before waits begin."),
		"address_free":         count("Password failures of one address across accounts before waits begin."),
		"account_free":         count("Failures of one account across addresses before waits begin for unknown sources."),
		"code_free":            count("Failed license codes of one address."),
		"sign_ups_per_address": count("Accounts one address may create per window."),
		"first_delay":          duration("The wait after the first failure past the free ones."),
		"max_delay":            duration("The longest wait."),
		"window":               duration("How long a failure counts."),
	})
}

func appProps(withSecret bool) obj {
	p := obj{
		"id": uuid("The application."), "name": str("Its name."), "api_key": str("The x-api-key of its clients."),
		"device_auth": boolean(""), "anonymous_access": boolean(""),
		"max_devices": integer(""), "min_password_length": integer(""), "session_ttl": str("A duration such as 24h."),
		"token_requires_hardware_id": boolean(""), "max_sessions": integer(""),
		"offline_token_ttl": str("An offline license token's lifetime, such as 72h."),
		"created_at":        timestamp("When it was created."),
	}
	for _, v := range p {
		if o := v.(obj); o["description"] == "" {
			delete(o, "description")
		}
	}
	if withSecret {
		p["api_secret"] = str("The x-api-secret of its clients; shown only here.")
	}
	return p
}

// withOptional adds the application's properties that are not always sent:
// its throttling overrides (when it has any) and its counts (GET
// /apps/{id} only).
func withOptional(p obj) obj {
	p["throttle"] = schemaRef("Throttle")
	p["counts"] = schemaRef("AppCounts")
	p["signing_keys"] = obj{"type": "array", "items": schemaRef("SigningKey"),
		"description": "The published signing keys, oldest first (GET /apps/{id} only); the active one signs."}
	return p
}

func keys(o obj) []string {
	out := slices.Collect(maps.Keys(o))
	slices.Sort(out)
	return out
}

func licenseProps(withCode bool) obj {
	p := obj{
		"id": uuid("The license."), "code_hint": str("The code's last characters: at most four, never more than a quarter of the code."),
		"minutes":                 nullable(obj{"type": "integer", "minimum": 1, "description": "Minutes the license adds; null for lifetime."}),
		"grants_lifetime_access":  boolean(""),
		"revokes_lifetime_access": boolean(""),
		"note":                    str("The administrator's note."),
		"created_at":              timestamp(""),
		"used_at":                 nullable(timestamp("When it was activated; null while unused.")),
		"used_by":                 nullable(uuid("The user who activated it; null while unused.")),
	}
	for _, k := range []string{"grants_lifetime_access", "revokes_lifetime_access", "created_at"} {
		delete(p[k].(obj), "description")
	}
	if withCode {
		p["code"] = str("The code, shown in full only now.")
	}
	return p
}

func managementAPI() *api {
	a := &api{
		title: "App Access management API",
		description: "The routes App Access adds under /app_access/ to Caddy's admin endpoint (localhost:2019 by default), " +
			"protected as that endpoint is. Bodies are strict: an unknown field is 422. See docs/admin.md.",
		codes: managementCodes,
		security: obj{"remoteAdmin": obj{"type": "mutualTLS",
			"description": "Remote admin (admin.remote) requires a client certificate; the local endpoint has no authentication."}},
	}
	ledger := closed([]string{"id", "occurred_at", "minutes", "grants_lifetime_access", "revokes_lifetime_access", "license_id", "type"}, obj{
		"id": uuid("The activation."), "occurred_at": timestamp(""),
		"minutes":                 nullable(obj{"type": "integer", "minimum": 1}),
		"grants_lifetime_access":  boolean(""),
		"revokes_lifetime_access": boolean(""),
		"license_id":              nullable(uuid("The activated license; null for a grant.")),
		"type":                    obj{"type": "string", "enum": []string{"license", "grant"}},
		"note":                    str("The administrator's note of a grant."),
	})
	for _, k := range []string{"occurred_at", "grants_lifetime_access", "revokes_lifetime_access"} {
		delete(ledger["properties"].(obj)[k].(obj), "description")
	}
	settings := settingsProps()
	a.schemas = obj{
		"Health":        closed([]string{"status", "time"}, obj{"status": obj{"type": "string", "const": "ok"}, "time": timestamp("The server's time.")}),
		"NewAppRequest": closed([]string{"name"}, settings),
		"AppSettings":   closed(nil, settingsProps()),
		"App":           closed(keys(appProps(false)), withOptional(appProps(false))),
		"NewApp":        closed(keys(appProps(true)), withOptional(appProps(true))),
		"Throttle":      throttleSchema(),
		"AppCounts": closed([]string{"licenses", "licenses_used", "licenses_unused", "users", "active_members"}, obj{
			"licenses": integer(""), "licenses_used": integer(""), "licenses_unused": integer(""), "users": integer(""),
			"active_members": integer("Users whose membership is active now."),
		}),
		"AppPage": page("apps", "App", false),
		"Activity": closed([]string{"days"}, obj{"days": arrayOf(closed([]string{"day", "sign_ups", "activations"}, obj{
			"day":         obj{"type": "string", "format": "date", "description": "The UTC day."},
			"sign_ups":    integer("Users created that day who still exist."),
			"activations": integer("Licenses used that day, license sign-ups included."),
		}))}),
		"SecretRotation": closed([]string{"api_secret"}, obj{"api_secret": str("The new secret; the old one stops working.")}),
		"LicenseRequest": closed(nil, obj{
			"count":                   obj{"type": "integer", "minimum": 1, "maximum": 10000, "description": "New codes to issue (default 1); not with codes."},
			"minutes":                 obj{"type": "integer", "minimum": 1},
			"grants_lifetime_access":  obj{"type": "boolean"},
			"revokes_lifetime_access": obj{"type": "boolean"},
			"note":                    obj{"type": "string"},
			"codes":                   obj{"type": "array", "items": obj{"type": "string", "minLength": 1, "maxLength": 128}, "description": "Existing codes to import; each needs about 80 bits of randomness."},
		}),
		"IssuedLicense":  closed(keys(licenseProps(true)), licenseProps(true)),
		"IssuedLicenses": closed([]string{"licenses"}, obj{"licenses": arrayOf(schemaRef("IssuedLicense"))}),
		"License":        closed(keys(licenseProps(false)), licenseProps(false)),
		"LicensePage":    page("licenses", "License", true),
		"LicenseLookup":  closed([]string{"code"}, obj{"code": obj{"type": "string"}}),
		"UserSummary":    closed([]string{"id", "username", "created_at"}, obj{"id": uuid(""), "username": str(""), "created_at": timestamp("")}),
		"UserPage":       page("users", "UserSummary", true),
		"Membership": closed([]string{"is_active", "is_lifetime", "expires_at"}, obj{
			"is_active": boolean(""), "is_lifetime": boolean(""), "expires_at": nullable(timestamp("")),
		}),
		"Device":         closed([]string{"hardware_id", "registered_at"}, obj{"hardware_id": str(""), "registered_at": timestamp("")}),
		"LedgerEntry":    ledger,
		"ActivationPage": page("activations", "LedgerEntry", true),
		"UserDetail": closed([]string{"id", "username", "membership", "banned", "ban_reason", "devices", "last_login_ip", "last_login_at", "created_at", "activations"}, obj{
			"id": uuid(""), "username": str(""), "membership": schemaRef("Membership"),
			"banned": boolean(""), "ban_reason": nullable(str("")),
			"devices": arrayOf(schemaRef("Device")), "last_login_ip": nullable(str("The client address of the last login.")),
			"last_login_at": nullable(timestamp("")), "created_at": timestamp(""),
			"activations": arrayOf(schemaRef("LedgerEntry")),
		}),
		"BanRequest": closed(nil, obj{"reason": obj{"type": "string"}}),
		"GrantRequest": closed(nil, obj{
			"minutes": obj{"type": "integer", "minimum": 1}, "grants_lifetime_access": obj{"type": "boolean"},
			"revokes_lifetime_access": obj{"type": "boolean"}, "note": obj{"type": "string"},
		}),
		"PasswordReset": closed([]string{"password"}, obj{"password": obj{"type": "string"}}),
		"VariableValue": closed([]string{"value"}, obj{"value": obj{"type": "string"}}),
		"Variable":      closed([]string{"name", "value"}, obj{"name": str(""), "value": str("")}),
		"VariablePage":  page("variables", "Variable", false),
		"FileInfo": closed([]string{"id", "name", "mime_type", "is_encrypted", "size", "sha256", "created_at"}, obj{
			"id": uuid(""), "name": str(""), "mime_type": str(""), "is_encrypted": boolean(""),
			"size": obj{"type": "integer", "minimum": 0}, "sha256": obj{"type": "string", "pattern": "^[0-9a-f]{64}$"},
			"created_at": timestamp(""),
		}),
		"FilePage": page("files", "FileInfo", false),
		"Principal": closed([]string{"kind", "name"}, obj{
			"kind": str("admin_endpoint, seller_key, admin, client or system."), "name": str("The address, key id or username."),
		}),
		"AuditEntry": closed([]string{"id", "time", "app_id", "principal", "action", "user_id", "target", "before", "after"}, obj{
			"id": uuid("A UUIDv7, ordered by time: the cursor."), "time": timestamp("When the change was stored."),
			"app_id":    nullable(uuid("The application; null in the server's own log.")),
			"principal": schemaRef("Principal"), "action": str("The event kind, such as user.banned, or a content change such as variable.set."),
			"user_id": nullable(uuid("The user the entry is about.")), "target": str("What changed."),
			"before": refOrNull("AuditChange", "What the change replaced; never a secret."),
			"after":  refOrNull("AuditChange", "What the change stored; never a secret."),
		}),
		"AuditPage":     page("entries", "AuditEntry", true),
		"AuditChange":   auditChange(),
		"ImportSummary": closed([]string{"records"}, obj{"records": obj{"type": "object", "additionalProperties": obj{"type": "integer"}, "description": "Records imported, by type."}}),
		"BackupRequest": closed([]string{"path"}, obj{"path": str("An absolute path on the server's machine; an existing file is never overwritten.")}),
		"Backup":        closed([]string{"path", "bytes"}, obj{"path": str(""), "bytes": obj{"type": "integer", "minimum": 0}}),
		"NewSellerKey": closed([]string{"name", "scopes"}, obj{"name": str("What the key is for."),
			"scopes": arrayOf(obj{"type": "string", "enum": []string{"licenses:create", "licenses:read", "users:read", "users:write", "content:write", "audit:read"}})}),
		"SellerKey": closed([]string{"id", "app_id", "name", "scopes", "created_at"}, obj{
			"id": uuid(""), "app_id": uuid(""), "name": str(""), "scopes": arrayOf(obj{"type": "string"}), "created_at": timestamp(""),
			"last_used_at": timestamp("When it was last used, to the minute."), "key": str("The secret: shown only in the answer that created it."),
		}),
		"SellerKeyPage": page("keys", "SellerKey", false),
		"SigningKey": closed([]string{"id", "algorithm", "public_key", "created_at", "active"}, obj{
			"id":         obj{"type": "string", "pattern": "^[A-Za-z0-9_-]{16}$", "description": "The key id: unpadded base64url of the first 12 bytes of the public key's SHA-256."},
			"algorithm":  obj{"type": "string", "const": "Ed25519"},
			"public_key": obj{"type": "string", "pattern": "^[A-Za-z0-9+/]{43}=$", "description": "The 32-byte Ed25519 public key, standard base64."},
			"created_at": timestamp("When it was created."),
			"active":     boolean("Whether it signs now (the newest key)."),
		}),
		"NewAdmin": closed([]string{"username", "password"}, obj{"username": obj{"type": "string"}, "password": obj{"type": "string"}}),
		"Admin": closed([]string{"username", "totp_enabled", "created_at"}, obj{
			"username": str(""), "totp_enabled": boolean(""), "created_at": timestamp(""),
		}),
		"AdminPage":     page("admins", "Admin", false),
		"TOTPEnrolment": closed([]string{"secret", "url"}, obj{"secret": str("The pending secret, shown once."), "url": str("Its otpauth:// URL.")}),
		"TOTPCode":      closed([]string{"code"}, obj{"code": obj{"type": "string"}}),
	}
	for k, v := range webhookSchemas() {
		a.schemas[k] = v
	}
	for _, s := range a.schemas {
		for _, p := range s.(obj)["properties"].(obj) {
			if o, ok := p.(obj); ok && o["description"] == "" {
				delete(o, "description")
			}
		}
	}
	const prefix = "/app_access"
	app := pathParam("app_id", "The application.")
	user := pathParam("user_id", "The user.")
	limit := queryParam("limit", "Items a page (1 to 1000, default 100).", obj{"type": "integer", "minimum": 1, "maximum": 1000})
	after := queryParam("after", "The next cursor of the previous page.", obj{"type": "string"})
	noContent := obj{"204": obj{"description": "Done."}}
	common := []int{500, 503}
	add := func(method, path, id, tag, summary string, params []obj, body string, ok obj, problems ...int) {
		op := operation{method: method, path: prefix + path, id: id, tag: tag, summary: summary, params: params, ok: ok,
			problems: append(problems, common...)}
		if body != "" {
			op.body = schemaRef(strings.TrimSuffix(body, "?"))
			op.bodyOptional = strings.HasSuffix(body, "?")
		}
		a.add(op)
	}
	js := jsonResponse
	add("GET", "/health", "health", "meta", "Whether the store is connected", nil, "",
		obj{"200": js("Serving.", schemaRef("Health"))})
	add("POST", "/apps", "createApp", "apps", "Create an application", nil, "NewAppRequest",
		obj{"201": js("The application with its secret.", schemaRef("NewApp"))}, 413, 422)
	add("GET", "/apps", "listApps", "apps", "List the applications", nil, "", obj{"200": js("Every application.", schemaRef("AppPage"))})
	add("GET", "/apps/{app_id}", "showApp", "apps", "Show an application", []obj{app}, "",
		obj{"200": js("The application.", schemaRef("App"))}, 404)
	add("PATCH", "/apps/{app_id}", "updateApp", "apps", "Change an application's settings", []obj{app}, "AppSettings",
		obj{"200": js("The application.", schemaRef("App"))}, 404, 413, 422)
	add("DELETE", "/apps/{app_id}", "deleteApp", "apps", "Delete an application", []obj{app}, "", noContent, 404)
	add("POST", "/apps/{app_id}/rotate_secret", "rotateSecret", "apps", "Replace the application's secret", []obj{app}, "",
		obj{"200": js("The new secret.", schemaRef("SecretRotation"))}, 404)

	license := pathParam("license_id", "The license.")
	add("GET", "/apps/{app_id}/activity", "showActivity", "apps", "Sign-ups and license activations per UTC day", []obj{app,
		queryParam("days", "How many days up to today (default 14).", obj{"type": "integer", "minimum": 1, "maximum": 366})}, "",
		obj{"200": js("One entry a day, oldest first, ending today.", schemaRef("Activity"))}, 404, 422)
	add("POST", "/apps/{app_id}/licenses", "createLicenses", "licenses", "Issue or import license codes", []obj{app}, "LicenseRequest",
		obj{"201": js("The licenses with their codes, shown in full only here.", schemaRef("IssuedLicenses"))}, 404, 409, 413, 422)
	add("GET", "/apps/{app_id}/licenses", "listLicenses", "licenses", "List licenses in id order", []obj{app,
		queryParam("used", "Only used (true) or unused (false) licenses.", obj{"type": "string", "enum": []string{"true", "false"}}), limit, after}, "",
		obj{"200": js("A page of licenses.", schemaRef("LicensePage"))}, 404, 422)
	add("POST", "/apps/{app_id}/licenses/lookup", "lookupLicense", "licenses", "Find a license by its code", []obj{app}, "LicenseLookup",
		obj{"200": js("The license.", schemaRef("License"))}, 404, 413, 422)
	add("GET", "/apps/{app_id}/licenses/{license_id}", "showLicense", "licenses", "Show a license", []obj{app, license}, "",
		obj{"200": js("The license.", schemaRef("License"))}, 404)
	add("DELETE", "/apps/{app_id}/licenses/{license_id}", "deleteLicense", "licenses", "Delete an unused license", []obj{app, license}, "",
		noContent, 404, 409)

	add("GET", "/apps/{app_id}/users", "listUsers", "users", "List users in username order", []obj{app,
		queryParam("prefix", "Only the users whose name starts with this, ignoring case.", obj{"type": "string"}),
		queryParam("username", "Find one user by name, ignoring case.", obj{"type": "string"}), limit, after}, "",
		obj{"200": js("A page of users.", schemaRef("UserPage"))}, 404, 422)
	add("GET", "/apps/{app_id}/users/{user_id}/activations", "listActivations", "users", "List a user's ledger, oldest first", []obj{app, user, limit, after}, "",
		obj{"200": js("A page of ledger entries.", schemaRef("ActivationPage"))}, 404, 422)
	add("GET", "/apps/{app_id}/users/{user_id}", "showUser", "users", "Show a user", []obj{app, user}, "",
		obj{"200": js("Everything about the user.", schemaRef("UserDetail"))}, 404)
	add("DELETE", "/apps/{app_id}/users/{user_id}", "deleteUser", "users", "Delete a user", []obj{app, user}, "", noContent, 404)
	add("POST", "/apps/{app_id}/users/{user_id}/ban", "banUser", "users", "Ban a user and end their sessions", []obj{app, user}, "BanRequest?",
		noContent, 404, 413, 422)
	add("POST", "/apps/{app_id}/users/{user_id}/unban", "unbanUser", "users", "Lift a ban", []obj{app, user}, "", noContent, 404)
	add("DELETE", "/apps/{app_id}/users/{user_id}/devices", "resetDevices", "users", "Free all the user's device slots", []obj{app, user}, "", noContent, 404)
	add("DELETE", "/apps/{app_id}/users/{user_id}/sessions", "endSessions", "users", "End all the user's sessions", []obj{app, user}, "", noContent, 404)
	add("POST", "/apps/{app_id}/users/{user_id}/password", "resetPassword", "users", "Set a user's password and end their sessions", []obj{app, user},
		"PasswordReset", noContent, 404, 413, 422)
	add("POST", "/apps/{app_id}/users/{user_id}/grant", "grant", "users", "Add membership time or lifetime access", []obj{app, user}, "GrantRequest",
		obj{"201": js("The ledger entry.", schemaRef("LedgerEntry"))}, 404, 413, 422)

	add("GET", "/apps/{app_id}/audit", "listAudit", "audit", "List the application's audit log, oldest first", []obj{app,
		queryParam("action", "Only entries of this action.", obj{"type": "string"}),
		queryParam("user", "Only entries about this user.", obj{"type": "string"}),
		queryParam("since", "Entries at or after this time.", obj{"type": "string", "format": "date-time"}),
		queryParam("until", "Entries before this time.", obj{"type": "string", "format": "date-time"}), limit, after}, "",
		obj{"200": js("A page of entries.", schemaRef("AuditPage"))}, 404, 422)
	add("GET", "/audit", "listServerAudit", "audit", "List the server's own audit log (administrators, dashboard sign-ins, export, import, backup), oldest first", []obj{
		queryParam("action", "Only entries of this action.", obj{"type": "string"}),
		queryParam("since", "Entries at or after this time.", obj{"type": "string", "format": "date-time"}),
		queryParam("until", "Entries before this time.", obj{"type": "string", "format": "date-time"}), limit, after}, "",
		obj{"200": js("A page of entries.", schemaRef("AuditPage"))}, 422)

	key := pathParam("key_id", "The seller key.")
	add("POST", "/apps/{app_id}/keys", "createSellerKey", "keys", "Create a seller key (its secret is shown only now)", []obj{app}, "NewSellerKey",
		obj{"201": js("The key with its secret.", schemaRef("SellerKey"))}, 404, 413, 422)
	add("GET", "/apps/{app_id}/keys", "listSellerKeys", "keys", "List the application's seller keys", []obj{app}, "",
		obj{"200": js("Every key, without secrets.", schemaRef("SellerKeyPage"))}, 404)
	add("DELETE", "/apps/{app_id}/keys/{key_id}", "revokeSellerKey", "keys", "Revoke a seller key at once", []obj{app, key}, "", noContent, 404)
	hook := pathParam("webhook_id", "The webhook endpoint.")
	delivery := pathParam("delivery_id", "The delivery (its webhook-id).")
	add("POST", "/apps/{app_id}/webhooks", "createWebhook", "webhooks", "Add a webhook endpoint (its secret is shown only now)", []obj{app}, "NewWebhook",
		obj{"201": js("The endpoint with its secret.", schemaRef("Webhook"))}, 404, 409, 413, 422)
	add("GET", "/apps/{app_id}/webhooks", "listWebhooks", "webhooks", "List the application's webhook endpoints", []obj{app}, "",
		obj{"200": js("Every endpoint, without secrets.", schemaRef("WebhookPage"))}, 404)
	add("GET", "/apps/{app_id}/webhooks/{webhook_id}", "showWebhook", "webhooks", "Show a webhook endpoint", []obj{app, hook}, "",
		obj{"200": js("The endpoint.", schemaRef("Webhook"))}, 404)
	add("PATCH", "/apps/{app_id}/webhooks/{webhook_id}", "updateWebhook", "webhooks", "Change an endpoint's URL, events or enabled flag", []obj{app, hook},
		"WebhookSettings", obj{"200": js("The endpoint.", schemaRef("Webhook"))}, 404, 413, 422)
	add("DELETE", "/apps/{app_id}/webhooks/{webhook_id}", "deleteWebhook", "webhooks", "Remove a webhook endpoint", []obj{app, hook}, "", noContent, 404)
	add("POST", "/apps/{app_id}/webhooks/{webhook_id}/rotate_secret", "rotateWebhookSecret", "webhooks",
		"Replace an endpoint's signing secret (the new one is shown only now); the old one signs too during the overlap", []obj{app, hook},
		"WebhookSecretRotation?", obj{"200": js("The endpoint with its new secret.", schemaRef("Webhook"))}, 404, 409, 413, 422)
	add("GET", "/apps/{app_id}/webhooks/{webhook_id}/deliveries", "listDeliveries", "webhooks", "List an endpoint's deliveries, newest first",
		[]obj{app, hook, limit, after}, "", obj{"200": js("A page of deliveries.", schemaRef("DeliveryPage"))}, 404, 422)
	add("GET", "/apps/{app_id}/webhooks/{webhook_id}/deliveries/{delivery_id}", "showDelivery", "webhooks", "Show a delivery with every attempt",
		[]obj{app, hook, delivery}, "", obj{"200": js("The delivery.", schemaRef("WebhookDelivery"))}, 404)
	add("POST", "/apps/{app_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver", "redeliver", "webhooks",
		"Send a delivered or failed delivery again, as a new round of attempts", []obj{app, hook, delivery}, "",
		obj{"202": js("The delivery, pending.", schemaRef("WebhookDelivery"))}, 404, 409)
	kid := pathParam("kid", "The signing key's id.")
	add("POST", "/apps/{app_id}/signing_keys", "rotateSigningKey", "apps", "Rotate the signing key: a new active key; the old ones stay published",
		[]obj{app}, "", obj{"201": js("The new active key.", schemaRef("SigningKey"))}, 404, 409)
	add("DELETE", "/apps/{app_id}/signing_keys/{kid}", "retireSigningKey", "apps", "Retire a signing key that is not the active one",
		[]obj{app, kid}, "", noContent, 404, 409)
	admin := pathParam("admin", "The administrator's username.")
	add("POST", "/admins", "createAdmin", "admins", "Create a dashboard administrator", nil, "NewAdmin",
		obj{"201": js("The administrator.", schemaRef("Admin"))}, 409, 413, 422)
	add("GET", "/admins", "listAdmins", "admins", "List the administrators", nil, "", obj{"200": js("Every administrator.", schemaRef("AdminPage"))})
	add("DELETE", "/admins/{admin}", "deleteAdmin", "admins", "Delete an administrator", []obj{admin}, "", noContent, 404)
	add("POST", "/admins/{admin}/password", "setAdminPassword", "admins",
		"Set an administrator's password (a forgotten or leaked one) and end their dashboard sessions; TOTP stays",
		[]obj{admin}, "PasswordReset", noContent, 404, 409, 413, 422)
	add("POST", "/admins/{admin}/totp", "beginTOTP", "admins", "Begin a TOTP enrolment", []obj{admin}, "",
		obj{"200": js("The pending secret.", schemaRef("TOTPEnrolment"))}, 404, 409)
	add("POST", "/admins/{admin}/totp/confirm", "confirmTOTP", "admins", "Confirm a TOTP enrolment with a code", []obj{admin}, "TOTPCode",
		noContent, 404, 409, 413, 422)
	add("DELETE", "/admins/{admin}/totp", "disableTOTP", "admins", "Turn an administrator's TOTP off", []obj{admin}, "", noContent, 404)

	add("POST", "/backup", "backup", "store", "Copy the embedded database while it serves", nil, "BackupRequest",
		obj{"201": js("The copy.", schemaRef("Backup"))}, 409, 413, 422)
	a.add(operation{method: "GET", path: prefix + "/export", id: "export", tag: "store", summary: "Export the whole store as JSON Lines",
		ok: obj{"200": obj{"description": "Every record, one JSON object a line; secrets and codes stay hashed or sealed.",
			"content": obj{"application/jsonl": obj{"schema": obj{"type": "string"}}}}},
		problems: append([]int{422}, common...)})
	a.add(operation{method: "POST", path: prefix + "/import", id: "import", tag: "store", summary: "Import an export into an empty store",
		ok: obj{"200": js("What was imported.", schemaRef("ImportSummary"))}, problems: append([]int{409, 413, 422}, common...)})
	a.paths[prefix+"/import"].(obj)["post"].(obj)["requestBody"] = obj{"required": true,
		"content": obj{"application/jsonl": obj{"schema": obj{"type": "string"}}}}

	name := pathParam("name", "The variable's name.")
	add("GET", "/apps/{app_id}/variables", "listVariables", "content", "List the variables", []obj{app}, "",
		obj{"200": js("Every variable.", schemaRef("VariablePage"))}, 404)
	add("PUT", "/apps/{app_id}/variables/{name}", "setVariable", "content", "Set a variable", []obj{app, name}, "VariableValue",
		obj{"200": js("The variable.", schemaRef("Variable"))}, 404, 413, 422)
	add("DELETE", "/apps/{app_id}/variables/{name}", "deleteVariable", "content", "Delete a variable", []obj{app, name}, "", noContent, 404)

	add("GET", "/apps/{app_id}/files", "listFiles", "content", "List the files", []obj{app}, "",
		obj{"200": js("Every file.", schemaRef("FilePage"))}, 404)
	add("DELETE", "/apps/{app_id}/files/{file_id}", "deleteFile", "content", "Delete a file", []obj{app, pathParam("file_id", "The file.")}, "", noContent, 404)
	a.add(operation{method: "POST", path: prefix + "/apps/{app_id}/files", id: "uploadFile", tag: "content", summary: "Upload a file",
		description: "The body is the file's bytes (up to 1 GiB), streamed into the store. The media type is ?mime_type=, else the " +
			"request's Content-Type, else the one the name or the first bytes imply.",
		params: []obj{app,
			{"name": "name", "in": "query", "required": true, "description": "The file's name.", "schema": obj{"type": "string", "minLength": 1}},
			queryParam("mime_type", "Its media type.", obj{"type": "string"}),
			queryParam("encrypted", "Store it encrypted.", obj{"type": "string", "enum": []string{"true", "false"}}),
		},
		ok:       obj{"201": js("The file.", schemaRef("FileInfo"))},
		problems: append([]int{404, 413, 422}, common...),
	})
	a.paths[prefix+"/apps/{app_id}/files"].(obj)["post"].(obj)["requestBody"] = obj{"required": true,
		"content": obj{"*/*": obj{"schema": obj{"type": "string", "contentMediaType": "application/octet-stream"}}}}
	a.add(openapiOperation(prefix+"/openapi.json", "meta", []int{500}, nil))
	return a
}

// managementDocument is the management API's document.
func managementDocument() obj {
	doc := managementAPI().document([]obj{{"url": "/", "description": "Caddy's admin endpoint, such as http://localhost:2019."}}, []obj{
		{"name": "apps", "description": "Applications and their secrets."},
		{"name": "licenses", "description": "License codes."},
		{"name": "users", "description": "Users, bans, devices, sessions and membership grants."},
		{"name": "content", "description": "Variables and files."},
		{"name": "audit", "description": "The audit log of management actions and security events."},
		{"name": "keys", "description": "Seller keys: scoped, per-application keys of the public management API."},
		{"name": "webhooks", "description": "Webhook endpoints, signed as Standard Webhooks, and their delivery logs."},
		{"name": "admins", "description": "Administrators of the web dashboard."},
		{"name": "store", "description": "Export, import and backup of the whole store."},
		{"name": "meta", "description": "Health and this document."},
	})
	doc["security"] = []obj{{}, {"remoteAdmin": []string{}}}
	return doc
}
