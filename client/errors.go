package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The refusals of the API, one for each problem code. An *Error wraps one:
// test with errors.Is.
var (
	ErrInvalidApplication     = errors.New("invalid application credentials")         // invalid_application
	ErrValidationFailed       = errors.New("validation failed")                       // validation_failed (see Error.Fields)
	ErrUsernameTaken          = errors.New("username taken")                          // username_taken
	ErrInvalidCredentials     = errors.New("invalid credentials")                     // invalid_credentials
	ErrLicenseInvalid         = errors.New("invalid license code")                    // license_invalid
	ErrLicenseUsed            = errors.New("license code already used")               // license_used
	ErrDeviceRequired         = errors.New("hardware id required")                    // device_required
	ErrDeviceMismatch         = errors.New("device not allowed")                      // device_mismatch
	ErrMembershipInactive     = errors.New("membership inactive")                     // membership_inactive
	ErrUserBanned             = errors.New("user banned")                             // user_banned
	ErrAuthenticationRequired = errors.New("authentication required")                 // authentication_required
	ErrSessionExpired         = errors.New("session expired")                         // session_expired
	ErrNotFound               = errors.New("not found")                               // not_found
	ErrConflict               = errors.New("conflict")                                // conflict
	ErrPayloadTooLarge        = errors.New("payload too large")                       // payload_too_large
	ErrTooManyAttempts        = errors.New("too many attempts")                       // too_many_attempts (see Error.RetryAfter)
	ErrMethodNotAllowed       = errors.New("method not allowed")                      // method_not_allowed
	ErrRangeNotSatisfiable    = errors.New("range not satisfiable")                   // range_not_satisfiable
	ErrUnavailable            = errors.New("service unavailable")                     // unavailable (see Error.RetryAfter)
	ErrInternal               = errors.New("internal server error")                   // internal_error
	ErrUnknownProblem         = errors.New("unexpected answer from the server")       // any other answer
	ErrChecksumMismatch       = errors.New("downloaded file fails its SHA-256 check") // Download
)

// sentinels maps each problem code to its error.
var sentinels = map[string]error{
	"invalid_application":     ErrInvalidApplication,
	"validation_failed":       ErrValidationFailed,
	"username_taken":          ErrUsernameTaken,
	"invalid_credentials":     ErrInvalidCredentials,
	"license_invalid":         ErrLicenseInvalid,
	"license_used":            ErrLicenseUsed,
	"device_required":         ErrDeviceRequired,
	"device_mismatch":         ErrDeviceMismatch,
	"membership_inactive":     ErrMembershipInactive,
	"user_banned":             ErrUserBanned,
	"authentication_required": ErrAuthenticationRequired,
	"session_expired":         ErrSessionExpired,
	"not_found":               ErrNotFound,
	"conflict":                ErrConflict,
	"payload_too_large":       ErrPayloadTooLarge,
	"too_many_attempts":       ErrTooManyAttempts,
	"method_not_allowed":      ErrMethodNotAllowed,
	"range_not_satisfiable":   ErrRangeNotSatisfiable,
	"unavailable":             ErrUnavailable,
	"internal_error":          ErrInternal,
}

// FieldError names one invalid field of a validation_failed refusal.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is a refusal of the API: an RFC 9457 problem. It wraps the sentinel
// error of its Code (ErrUnknownProblem for an answer that is no problem).
type Error struct {
	// Status is the HTTP status.
	Status int
	// Code is the stable machine-readable reason, such as
	// "invalid_credentials".
	Code string
	// Detail says what happened, in words safe to show to a user.
	Detail string
	// Fields lists the invalid fields of a validation_failed refusal.
	Fields []FieldError
	// RetryAfter is how long to wait before trying again (429 and 503),
	// zero when the server did not say.
	RetryAfter time.Duration

	sentinel error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "app access: %d %s", e.Status, e.Code)
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	for _, f := range e.Fields {
		fmt.Fprintf(&b, "; %s %s", f.Field, f.Message)
	}
	return b.String()
}

// Unwrap returns the sentinel error of the code.
func (e *Error) Unwrap() error { return e.sentinel }

// errorOf reads a refusal.
func errorOf(res *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	e := &Error{Status: res.StatusCode, sentinel: ErrUnknownProblem}
	var p struct {
		Code   string       `json:"code"`
		Detail string       `json:"detail"`
		Errors []FieldError `json:"errors"`
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") && json.Unmarshal(raw, &p) == nil {
		e.Code, e.Detail, e.Fields = p.Code, p.Detail, p.Errors
		if s, ok := sentinels[p.Code]; ok {
			e.sentinel = s
		}
	} else {
		e.Code, e.Detail = "unexpected_answer", http.StatusText(res.StatusCode)
	}
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}
