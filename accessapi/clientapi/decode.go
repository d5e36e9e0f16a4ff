package clientapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/appaccess/appaccess/accessapi/access"
)

// MaxBodyBytes bounds a request body.
const MaxBodyBytes = 64 << 10

// DecodeJSON reads a JSON object body into v. Unknown fields are ignored; a body
// over MaxBodyBytes, malformed JSON or a field of the wrong type is refused.
func DecodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return access.Refusal(access.CodePayloadTooLarge, "The request body is larger than 64 KiB.")
	}
	if err != nil {
		return access.Invalid(access.FieldError{Field: "body", Message: "could not be read"})
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return access.Invalid(access.FieldError{Field: "body", Message: "must be a JSON object"})
	}
	if err := json.Unmarshal(body, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			field := typeErr.Field
			if field == "" {
				field = "body"
			}
			return access.Invalid(access.FieldError{Field: field, Message: fmt.Sprintf("must be %s", jsonKind(typeErr.Type.Kind().String()))})
		}
		return access.Invalid(access.FieldError{Field: "body", Message: "is not valid JSON"})
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "struct", "map", "ptr":
		return "an object"
	case "bool":
		return "a boolean"
	case "int", "int64":
		return "an integer"
	}
	return "of another type"
}

// required lists the named fields that are empty.
func required(fields ...[2]string) *access.Error {
	var missing []access.FieldError
	for _, f := range fields {
		if f[1] == "" {
			missing = append(missing, access.FieldError{Field: f[0], Message: "is required"})
		}
	}
	if len(missing) > 0 {
		return access.Invalid(missing...)
	}
	return nil
}
