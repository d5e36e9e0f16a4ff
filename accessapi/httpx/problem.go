package httpx

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// Problem is an RFC 9457 problem details body.
type Problem = wire.Problem

// CodeRangeNotSatisfiable refuses a Range header that selects no byte of
// a file (416). It is an HTTP matter, so it is not among the service's codes.
const CodeRangeNotSatisfiable access.Code = "range_not_satisfiable"

var statusOf = map[access.Code]int{
	access.CodeInvalidApplication:     http.StatusUnauthorized,
	access.CodeValidationFailed:       http.StatusUnprocessableEntity,
	access.CodeUsernameTaken:          http.StatusConflict,
	access.CodeInvalidCredentials:     http.StatusUnauthorized,
	access.CodeLicenseInvalid:         http.StatusUnauthorized,
	access.CodeLicenseUsed:            http.StatusUnauthorized,
	access.CodeDeviceRequired:         http.StatusUnauthorized,
	access.CodeDeviceMismatch:         http.StatusUnauthorized,
	access.CodeMembershipInactive:     http.StatusForbidden,
	access.CodeUserBanned:             http.StatusForbidden,
	access.CodeAuthenticationRequired: http.StatusUnauthorized,
	access.CodeSessionExpired:         http.StatusUnauthorized,
	access.CodeNotFound:               http.StatusNotFound,
	access.CodeConflict:               http.StatusConflict,
	access.CodePayloadTooLarge:        http.StatusRequestEntityTooLarge,
	access.CodeTooManyAttempts:        http.StatusTooManyRequests,
	access.CodeMethodNotAllowed:       http.StatusMethodNotAllowed,
	CodeRangeNotSatisfiable:           http.StatusRequestedRangeNotSatisfiable,
	access.CodeUnavailable:            http.StatusServiceUnavailable,
	access.CodeInternal:               http.StatusInternalServerError,
	access.CodeForbidden:              http.StatusForbidden,
}

var titleOf = map[access.Code]string{
	access.CodeInvalidApplication:     "Invalid application credentials",
	access.CodeValidationFailed:       "Validation failed",
	access.CodeUsernameTaken:          "Username taken",
	access.CodeInvalidCredentials:     "Invalid credentials",
	access.CodeLicenseInvalid:         "Invalid license code",
	access.CodeLicenseUsed:            "License code already used",
	access.CodeDeviceRequired:         "Hardware id required",
	access.CodeDeviceMismatch:         "Device not allowed",
	access.CodeMembershipInactive:     "Membership inactive",
	access.CodeUserBanned:             "User banned",
	access.CodeAuthenticationRequired: "Authentication required",
	access.CodeSessionExpired:         "Session expired",
	access.CodeNotFound:               "Not found",
	access.CodeConflict:               "Conflict",
	access.CodePayloadTooLarge:        "Payload too large",
	access.CodeTooManyAttempts:        "Too many attempts",
	access.CodeMethodNotAllowed:       "Method not allowed",
	CodeRangeNotSatisfiable:           "Range not satisfiable",
	access.CodeUnavailable:            "Service unavailable",
	access.CodeInternal:               "Internal error",
	access.CodeForbidden:              "Forbidden",
}

// StatusOf is the HTTP status of a refusal code.
func StatusOf(code access.Code) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// ProblemOf turns an error into the problem a client is shown. Anything
// that is not an *access.Error becomes a bare internal error, so no internal
// detail or secret can leak.
func ProblemOf(err error) Problem {
	var e *access.Error
	if !errors.As(err, &e) {
		e = access.Refusal(access.CodeInternal, "An internal error occurred; it has been logged.")
	}
	p := Problem{Type: wire.ProblemTypePrefix + string(e.Code), Title: titleOf[e.Code], Status: StatusOf(e.Code),
		Detail: e.Detail, Code: string(e.Code)}
	for _, f := range e.Fields {
		p.Errors = append(p.Errors, wire.FieldError{Field: f.Field, Message: f.Message})
	}
	return p
}

// WriteProblem answers with err as an application/problem+json body, and
// logs it when it is not a refusal.
func WriteProblem(w http.ResponseWriter, logger *zap.Logger, err error) {
	p := ProblemOf(err)
	if p.Code == string(access.CodeInternal) && logger != nil {
		logger.Error("request failed", zap.Error(err))
	}
	if p.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="app-access"`)
	}
	var e *access.Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	w.Header().Set("Content-Type", "application/problem+json")
	WriteJSON(w, p.Status, p)
}
