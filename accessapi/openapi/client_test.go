package openapi

import (
	"net/http"
	"slices"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
)

// clientCodes are the problem codes the client API answers.
var clientCodes = []access.Code{
	access.CodeInvalidApplication, access.CodeValidationFailed, access.CodeUsernameTaken,
	access.CodeInvalidCredentials, access.CodeLicenseInvalid, access.CodeLicenseUsed,
	access.CodeDeviceRequired, access.CodeDeviceMismatch, access.CodeMembershipInactive,
	access.CodeUserBanned, access.CodeAuthenticationRequired, access.CodeSessionExpired,
	access.CodeNotFound, access.CodePayloadTooLarge, access.CodeTooManyAttempts,
	access.CodeMethodNotAllowed, httpx.CodeRangeNotSatisfiable, access.CodeUnavailable, access.CodeInternal,
}

// The problems every client endpoint can answer: the application's
// credentials (401, and 429 after repeated wrong secrets), the service
// starting or overloaded (503), and an internal error.
var clientCommon = []int{401, 429, 500, 503}

func withCommon(extra ...int) []int { return append(extra, clientCommon...) }

func headerParam(name, desc string, schema obj) obj {
	return obj{"name": name, "in": "header", "required": false, "description": desc, "schema": schema}
}

// userAuthParams are the header forms of user authentication (besides a
// Bearer token).
var userAuthParams = []obj{
	headerParam("x-api-license-code", "License-code auth: the code the user activated.", obj{"type": "string", "maxLength": 128}),
	headerParam("x-api-username", "Legacy password auth: the username.", obj{"type": "string", "maxLength": 64}),
	headerParam("x-api-password", "Legacy password auth: the password.", obj{"type": "string"}),
	headerParam("x-hardware-id", "The device, when the application has device authentication: required with the license and legacy forms; "+
		"with a Bearer token, compared with the session's device when sent, and required when the application sets token_requires_hardware_id.",
		obj{"type": "string", "minLength": 1, "maxLength": 256}),
}

var (
	appOnly     = []obj{{"appKey": []string{}, "appSecret": []string{}}}
	appAndMaybe = []obj{{"appKey": []string{}, "appSecret": []string{}, "session": []string{}}, {"appKey": []string{}, "appSecret": []string{}}}
	appAndToken = []obj{{"appKey": []string{}, "appSecret": []string{}, "session": []string{}}}
)

func clientAPI() *api {
	a := &api{
		title: "App Access client API",
		description: "The API client apps call: sign-up, login, license activation, the application context and file downloads. " +
			"Every request carries the application's credentials (x-api-key and x-api-secret). Errors are RFC 9457 problems " +
			"with a stable `code`. Unknown request fields are ignored. See docs/api.md.",
		codes: clientCodes, retryAfter503: true,
		security: obj{
			"appKey":    obj{"type": "apiKey", "in": "header", "name": "x-api-key", "description": "The application's API key."},
			"appSecret": obj{"type": "apiKey", "in": "header", "name": "x-api-secret", "description": "The application's API secret."},
			"session":   obj{"type": "http", "scheme": "bearer", "description": "A session token from POST /auth/login."},
		},
	}
	membership := closed([]string{"is_active", "is_lifetime", "expires_at"}, obj{
		"is_active":   boolean("Whether the user has access now."),
		"is_lifetime": boolean("Whether the access is permanent."),
		"expires_at":  nullable(timestamp("When the membership time runs out; null when no time was ever added.")),
	})
	a.schemas = obj{
		"Membership": membership,
		"User": closed([]string{"id", "username", "membership"}, obj{
			"id": uuid("The user."), "username": str("The user's name; generated (user-…) for a license-code sign-up."),
			"membership": schemaRef("Membership"),
		}),
		"Variable": closed([]string{"name", "value"}, obj{"name": str("The variable's name."), "value": str("Its value.")}),
		"File": closed([]string{"id", "name", "mime_type", "is_encrypted"}, obj{
			"id": uuid("The file, for GET /files/{file_id}."), "name": str("Its name."),
			"mime_type": str("Its media type."), "is_encrypted": boolean("Whether it is stored encrypted."),
		}),
		"Application": closed([]string{"id", "name", "variables", "files"}, obj{
			"id": uuid("The application."), "name": str("Its name."),
			"variables": arrayOf(schemaRef("Variable")), "files": arrayOf(schemaRef("File")),
		}),
		"AppContext": closed([]string{"application", "user"}, obj{
			"application": schemaRef("Application"),
			"user":        obj{"description": "The user; null for an anonymous request.", "oneOf": []obj{schemaRef("User"), {"type": "null"}}},
		}),
		"Session": closed([]string{"session_token", "expires_at"}, obj{
			"session_token": obj{"type": "string", "minLength": 1, "description": "Send as Authorization: Bearer <token>."},
			"expires_at":    timestamp("When the session ends."),
		}),
		"Activation": closed([]string{"id", "occurred_at", "minutes", "grants_lifetime_access", "revokes_lifetime_access", "license_id", "type"}, obj{
			"id": uuid("The activation."), "occurred_at": timestamp("When the license was activated."),
			"minutes":                 nullable(obj{"type": "integer", "minimum": 1, "description": "Minutes added; null for a lifetime grant or revocation."}),
			"grants_lifetime_access":  boolean("Whether the license grants lifetime access."),
			"revokes_lifetime_access": boolean("Whether the license revokes lifetime access."),
			"license_id":              uuid("The activated license."),
			"type":                    obj{"type": "string", "const": "license"},
		}),
		"SignUpRequest": open([]string{"username", "password"}, obj{
			"username":    obj{"type": "string", "minLength": 3, "maxLength": 64, "description": "Unique per application, ignoring case."},
			"password":    obj{"type": "string", "description": "At least the application's min_password_length characters, at most 1024 bytes."},
			"hardware_id": obj{"type": "string", "maxLength": 256, "description": "Required when the application has device authentication."},
		}),
		"LicenseSignUpRequest": open([]string{"code"}, obj{
			"code":        obj{"type": "string", "description": "A license code."},
			"hardware_id": obj{"type": "string", "maxLength": 256, "description": "Required when the application has device authentication."},
		}),
		"PasswordCredentials": open([]string{"username", "password"}, obj{"username": obj{"type": "string"}, "password": obj{"type": "string"}}),
		"CodeCredentials":     open([]string{"code"}, obj{"code": obj{"type": "string", "description": "A license code the user activated."}}),
		"LoginRequest": open([]string{"credentials"}, obj{
			"credentials": obj{"oneOf": []obj{schemaRef("PasswordCredentials"), schemaRef("CodeCredentials")}},
			"hardware_id": obj{"type": "string", "maxLength": 256, "description": "Required when the application has device authentication."},
		}),
		"ActivateLicenseRequest": open([]string{"code", "username", "password"}, obj{
			"code": obj{"type": "string"}, "username": obj{"type": "string"}, "password": obj{"type": "string"},
		}),
		"OfflineToken": closed([]string{"token", "valid_until"}, obj{
			"token": obj{"type": "string", "pattern": `^aat1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$`,
				"description": "aat1.<base64url(payload)>.<base64url(Ed25519 signature)>: see docs/api.md."},
			"valid_until": timestamp("When the token stops being valid: the application's offline_token_ttl from now, never past the membership's end."),
		}),
		"ChangePasswordRequest": open([]string{"username", "old_password", "new_password"}, obj{
			"username": obj{"type": "string"}, "old_password": obj{"type": "string"}, "new_password": obj{"type": "string"},
			"hardware_id": obj{"type": "string", "description": "The device the change is made from (or x-hardware-id): required, and checked as for a login, when the application has device authentication."},
		}),
	}
	body := func(name string) obj { return schemaRef(name) }
	noContent := obj{"description": "Done.", "headers": obj{"Cache-Control": ref("headers", "CacheControlNoStore")}}

	a.add(operation{method: "POST", path: "/sign_up", id: "signUp", tag: "users", summary: "Sign up with a username and password",
		description: "Creates a user with no active membership; with device authentication the device is registered.",
		body:        body("SignUpRequest"), security: appOnly, problems: withCommon(409, 413, 422),
		ok: obj{"201": jsonResponse("The new user, membership.is_active false.", schemaRef("User"))}})
	a.add(operation{method: "POST", path: "/sign_up_with_license_code", id: "signUpWithLicenseCode", tag: "users",
		summary:     "Sign up with a license code",
		description: "Creates a user with a generated username and activates the license at once.",
		body:        body("LicenseSignUpRequest"), security: appOnly, problems: withCommon(413, 422),
		ok: obj{"201": jsonResponse("The new user, membership.is_active true.", schemaRef("User"))}})
	a.add(operation{method: "POST", path: "/auth/login", id: "login", tag: "sessions", summary: "Log in: open a session",
		description: "Checks the credentials, then the device, the ban and the membership. The client address is recorded.",
		body:        body("LoginRequest"), security: appOnly, problems: withCommon(403, 413, 422),
		ok: obj{"200": jsonResponse("The session.", schemaRef("Session"))}})
	a.add(operation{method: "POST", path: "/auth/logout", id: "logout", tag: "sessions", summary: "Log out: end the session of the Bearer token",
		security: appAndToken, problems: withCommon(), ok: obj{"204": noContent}})
	a.add(operation{method: "POST", path: "/auth/change_password", id: "changePassword", tag: "sessions", summary: "Change a user's password",
		description: "The user's other sessions end; the session of the Bearer token sent with it, if any, stays open.",
		body:        body("ChangePasswordRequest"), security: appAndMaybe, problems: withCommon(403, 413, 422), ok: obj{"204": noContent}})
	a.add(operation{method: "POST", path: "/activate_license", id: "activateLicense", tag: "users", summary: "Activate a license for a user",
		body: body("ActivateLicenseRequest"), security: appOnly, problems: withCommon(403, 413, 422),
		ok: obj{"201": jsonResponse("The activation record.", schemaRef("Activation"))}})
	a.add(operation{method: "GET", path: "/app_context", id: "getAppContext", tag: "content", summary: "The application and the current user",
		description: "User authentication: a Bearer token, else x-api-license-code, else x-api-username with x-api-password. " +
			"Optional when the application allows anonymous access.",
		params: userAuthParams, security: appAndMaybe, problems: withCommon(403),
		ok: obj{"200": jsonResponse("The application context.", schemaRef("AppContext"))}})
	a.add(operation{method: "POST", path: "/auth/offline_token", id: "issueOfflineToken", tag: "sessions",
		summary: "Issue an offline license token",
		description: "The user authentication of GET /app_context (no anonymous request). With device authentication, x-hardware-id is " +
			"required and the token is held to it. An inactive membership is refused (403). The token is signed with the application's " +
			"active signing key and verifies without the network.",
		params: userAuthParams, security: appAndMaybe, problems: withCommon(403),
		ok: obj{"200": jsonResponse("The token.", schemaRef("OfflineToken"))}})

	fileHeaders := func(partial bool) obj {
		h := obj{
			"Cache-Control":          header("The application's content: keep privately, revalidate.", true, obj{"type": "string", "const": "private, no-cache"}),
			"ETag":                   ref("headers", "ETag"),
			"Accept-Ranges":          ref("headers", "AcceptRanges"),
			"Content-Length":         header("The length of the bytes sent.", true, obj{"type": "integer", "minimum": 0}),
			"Content-Disposition":    header("Always an attachment, with the file's name.", true, obj{"type": "string", "pattern": "^attachment; filename="}),
			"X-Content-Type-Options": ref("headers", "NoSniff"),
		}
		if partial {
			h["Content-Range"] = header("The bytes sent.", true, obj{"type": "string", "pattern": `^bytes \d+-\d+/\d+$`})
		}
		return h
	}
	fileBody := obj{"*/*": obj{"schema": obj{"type": "string", "contentMediaType": "application/octet-stream"}}}
	a.add(operation{method: "GET", path: "/files/{file_id}", id: "downloadFile", tag: "content", summary: "Download a file",
		description: "The user authentication of GET /app_context. One byte range (Range, If-Range) and revalidation (If-None-Match) are supported.",
		params: append([]obj{
			{"name": "file_id", "in": "path", "required": true, "description": "The file, from the application context.", "schema": obj{"type": "string"}},
			headerParam("Range", "One range: bytes=first-last, bytes=first- or bytes=-suffix.", obj{"type": "string"}),
			headerParam("If-Range", "The ETag the range applies to.", obj{"type": "string"}),
			headerParam("If-None-Match", "An ETag the client has.", obj{"type": "string"}),
		}, userAuthParams...),
		security: appAndMaybe, problems: withCommon(403, 404, 416),
		ok: obj{
			"200": obj{"description": "The file, with its media type.", "headers": fileHeaders(false), "content": fileBody},
			"206": obj{"description": "The requested range.", "headers": fileHeaders(true), "content": fileBody},
			"304": obj{"description": "The client's copy is current.", "headers": obj{
				"Cache-Control": header("Keep privately, revalidate.", true, obj{"type": "string", "const": "private, no-cache"}),
				"ETag":          ref("headers", "ETag"), "Accept-Ranges": ref("headers", "AcceptRanges"),
			}},
		}})
	a.add(openapiOperation("/openapi.json", "meta", []int{http.StatusInternalServerError, http.StatusServiceUnavailable}, []obj{}))
	return a
}

// signResponses declares the signature headers on every response of the
// client API: present when the request's x-api-key names an application.
func signResponses(doc obj) {
	components := doc["components"].(obj)
	headers := components["headers"].(obj)
	headers["AppAccessSignature"] = header("The answer's signature by the application's active signing key, when the request's "+
		"x-api-key names an application: v2; kid=<key id>; ts=<Unix seconds>; salt=<base64url, 16 bytes>; idx=<leaf index>; proof=<base64 Merkle proof>; "+
		"sig=<base64 Ed25519 signature>. See docs/api.md.",
		false, obj{"type": "string", "pattern": `^v2; kid=[A-Za-z0-9_-]+; ts=\d+; salt=[A-Za-z0-9_-]{22}; idx=\d+; proof=[A-Za-z0-9+/]*=*; sig=[A-Za-z0-9+/]+=*$`})
	headers["AppAccessNonce"] = header("The request's X-App-Access-Nonce, echoed when it was 1 to 128 printable ASCII characters.",
		false, obj{"type": "string", "minLength": 1, "maxLength": 128})
	sign := func(resp obj) {
		if _, isRef := resp["$ref"]; isRef {
			return
		}
		h, _ := resp["headers"].(obj)
		if h == nil {
			h = obj{}
			resp["headers"] = h
		}
		h["App-Access-Signature"] = ref("headers", "AppAccessSignature")
		h["X-App-Access-Nonce"] = ref("headers", "AppAccessNonce")
	}
	for _, r := range components["responses"].(obj) {
		sign(r.(obj))
	}
	nonce := headerParam("X-App-Access-Nonce", "A fresh random value the signed answer echoes and covers, so that a recorded "+
		"answer cannot be replayed: 1 to 128 printable ASCII characters.", obj{"type": "string", "maxLength": 128})
	for _, item := range doc["paths"].(obj) {
		for _, op := range item.(obj) {
			o := op.(obj)
			for _, r := range o["responses"].(obj) {
				sign(r.(obj))
			}
			params, _ := o["parameters"].([]obj)
			o["parameters"] = append(slices.Clip(params), nonce)
		}
	}
}

// clientDocument is the client API's document.
func clientDocument() obj {
	a := clientAPI()
	doc := a.document([]obj{{"url": "/", "description": "The site that serves app_access_api."}}, []obj{
		{"name": "users", "description": "Sign-up and license activation."},
		{"name": "sessions", "description": "Login, logout and passwords."},
		{"name": "content", "description": "The application context and its files."},
		{"name": "meta", "description": "This document."},
	})
	doc["security"] = appOnly
	headers := doc["components"].(obj)["headers"].(obj)
	headers["ETag"] = header("The file's SHA-256, quoted.", true, obj{"type": "string", "pattern": `^"[0-9a-f]{64}"$`})
	headers["AcceptRanges"] = header("Byte ranges are supported.", true, obj{"type": "string", "const": "bytes"})
	headers["ContentRangeUnsatisfied"] = header("The file's size.", true, obj{"type": "string", "pattern": `^bytes \*/\d+$`})
	signResponses(doc)
	return doc
}
