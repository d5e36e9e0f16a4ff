package adminclient

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/appaccess/appaccess/accessapi/wire"
)

// Problem is a refusal of the management API (an RFC 9457 problem), or
// any other answer outside 2xx. Find it with errors.As.
type Problem struct {
	// Status is the HTTP status.
	Status int
	// Code is the problem's stable code ("not_found", "validation_failed"
	// ...), empty when the answer was not an App Access problem (for
	// example Caddy's own admin error).
	Code string
	// Title is the code's fixed title.
	Title string
	// Detail says what happened.
	Detail string
	// Fields are the invalid fields of a validation_failed problem.
	Fields []wire.FieldError
}

// Error is the detail, followed by the invalid fields.
func (p *Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.Detail)
	for i, f := range p.Fields {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(f.Field + " " + f.Message)
	}
	return b.String()
}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

func problemOf(res *http.Response) *Problem {
	p := &Problem{Status: res.StatusCode}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	media, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	switch media {
	case "application/problem+json":
		var w wire.Problem
		if json.Unmarshal(raw, &w) == nil {
			p.Code, p.Title, p.Detail, p.Fields = w.Code, w.Title, w.Detail, w.Errors
		}
	case "application/json":
		// Caddy's admin endpoint answers its own errors as {"error": "..."}.
		var caddyErr struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(raw, &caddyErr) == nil {
			p.Detail = caddyErr.Error
		}
	}
	if p.Detail == "" {
		p.Detail = http.StatusText(res.StatusCode)
	}
	return p
}
