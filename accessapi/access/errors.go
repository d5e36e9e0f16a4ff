package access

import (
	"errors"
	"fmt"
	"time"
)

// Code is a stable, machine-readable reason for a refused request.
type Code string

// The codes a client can receive. They are part of the public contract.
const (
	CodeInvalidApplication     Code = "invalid_application"
	CodeValidationFailed       Code = "validation_failed"
	CodeUsernameTaken          Code = "username_taken"
	CodeInvalidCredentials     Code = "invalid_credentials"
	CodeLicenseInvalid         Code = "license_invalid"
	CodeLicenseUsed            Code = "license_used"
	CodeDeviceRequired         Code = "device_required"
	CodeDeviceMismatch         Code = "device_mismatch"
	CodeMembershipInactive     Code = "membership_inactive"
	CodeUserBanned             Code = "user_banned"
	CodeAuthenticationRequired Code = "authentication_required"
	CodeSessionExpired         Code = "session_expired"
	CodeNotFound               Code = "not_found"
	CodeConflict               Code = "conflict"
	CodePayloadTooLarge        Code = "payload_too_large"
	CodeTooManyAttempts        Code = "too_many_attempts"
	CodeMethodNotAllowed       Code = "method_not_allowed"
	CodeUnavailable            Code = "unavailable"
	CodeInternal               Code = "internal_error"
	// CodeForbidden refuses a management request its credential does not
	// cover: a seller key's application or scopes.
	CodeForbidden Code = "forbidden"
)

// FieldError names one invalid input field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is a refusal the caller may show to the client: it never carries a
// secret or an internal detail.
type Error struct {
	Code   Code
	Detail string
	Fields []FieldError
	// RetryAfter, when set, is how long the client should wait before
	// trying again (the Retry-After header).
	RetryAfter time.Duration
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Detail) }

// Refusal builds an *Error.
func Refusal(code Code, detail string) *Error { return &Error{Code: code, Detail: detail} }

// Invalid builds a validation refusal for the given fields.
func Invalid(fields ...FieldError) *Error {
	return &Error{Code: CodeValidationFailed, Detail: "The request is not valid.", Fields: fields}
}

// CodeOf returns the refusal code of err, or CodeInternal for any other error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// The refusals whose wording is shared by several use cases.
var (
	errInvalidApplication = Refusal(CodeInvalidApplication, "The application key and secret are not valid.")
	errInvalidCredentials = Refusal(CodeInvalidCredentials, "The credentials are not valid.")
	errLicenseInvalid     = Refusal(CodeLicenseInvalid, "The license code is not valid.")
	errLicenseUsed        = Refusal(CodeLicenseUsed, "The license code has already been used.")
	errDeviceRequired     = Refusal(CodeDeviceRequired, "A hardware id is required for this application.")
	errDeviceMismatch     = Refusal(CodeDeviceMismatch, "This device is not registered for the user and no device slot is free.")
	errMembershipInactive = Refusal(CodeMembershipInactive, "The user has no active membership.")
	errUserBanned         = Refusal(CodeUserBanned, "The user is banned.")
	errSessionExpired     = Refusal(CodeSessionExpired, "The session has expired; log in again.")
	errSessionInvalid     = Refusal(CodeInvalidCredentials, "The session token is not valid or the session has ended.")
	errAnonymousRefused   = Refusal(CodeAuthenticationRequired, "Only logged in users are allowed to access")

	errSessionDeviceMismatch = Refusal(CodeDeviceMismatch, "The session was opened on another device.")
	errSessionWithoutDevice  = Refusal(CodeDeviceRequired, "The session is not bound to a device; log in again with a hardware id.")
)

// notFound is the refusal for a resource (named in lower case, such as
// "user") that does not exist, or belongs to another application.
func notFound(resource string) *Error {
	return Refusal(CodeNotFound, "The "+resource+" does not exist.")
}

// ErrDuplicate is returned by stores when an insert hits an existing unique key.
var ErrDuplicate = errors.New("duplicate key")

// ErrNotFound is returned by stores when a document does not exist.
var ErrNotFound = errors.New("not found")
