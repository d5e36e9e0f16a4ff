package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/appaccess/appaccess/accessapi/access"
)

// WriteJSON answers with status and v as JSON, never to be cached.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	writeJSONHeader(w, status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteJSONBytes answers like WriteJSON with a body already encoded.
func WriteJSONBytes(w http.ResponseWriter, status int, body []byte) {
	writeJSONHeader(w, status)
	_, _ = w.Write(body)
}

// writeJSONHeader sends the headers of a JSON answer. It sets them as
// Header.Set would, with the values of the three in one allocation; each
// is a slice of its own capacity, so that an Add to one never writes into
// another.
func writeJSONHeader(w http.ResponseWriter, status int) {
	h := w.Header()
	values := [...]string{"no-store", "nosniff", "application/json"}
	h["Cache-Control"] = values[0:1:1]
	h["X-Content-Type-Options"] = values[1:2:2]
	if h.Get("Content-Type") == "" {
		h["Content-Type"] = values[2:3:3]
	}
	w.WriteHeader(status)
}

// DecodeJSON reads a JSON object body of at most limit bytes into v,
// ignoring unknown fields: the client API's rule, so that old and new
// clients keep working. A larger body is a payload_too_large refusal;
// anything but a JSON object, or fields of the wrong type, is a
// validation_failed refusal naming them.
func DecodeJSON(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	return decodeJSON(w, r, v, limit, false)
}

// DecodeStrictJSON is DecodeJSON that also refuses a field v does not have,
// naming it: the management API's rule, so a misspelt setting is never
// silently dropped.
func DecodeStrictJSON(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	return decodeJSON(w, r, v, limit, true)
}

// errNotObject is the one wording of a body that is not a JSON object.
var errNotObject = access.Invalid(access.FieldError{Field: "body", Message: "must be a JSON object"})

func decodeJSON(w http.ResponseWriter, r *http.Request, v any, limit int64, strict bool) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return access.Refusal(access.CodePayloadTooLarge, "The request body is larger than "+SizeText(limit)+".")
	}
	if err != nil {
		return access.Invalid(access.FieldError{Field: "body", Message: "could not be read"})
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return errNotObject
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			if fields := typeErrors(body, reflect.TypeOf(v)); len(fields) > 0 {
				return access.Invalid(fields...)
			}
			return access.Invalid(access.FieldError{Field: typeErr.Field, Message: "must be " + jsonKind(typeErr.Type.Kind().String())})
		}
		if name, ok := unknownField(err); ok {
			return access.Invalid(access.FieldError{Field: name, Message: "is not a known field"})
		}
		return errNotObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return errNotObject // something follows the object
	}
	if key, ok := repeatedKey(body); ok {
		// encoding/json keeps the last; a proxy in front may read the
		// first: the two must never disagree about what was sent.
		return access.Invalid(access.FieldError{Field: key, Message: "appears more than once"})
	}
	return nil
}

// repeatedKey returns a key that an object of the valid JSON body holds
// twice, at any depth, as encoding/json matches keys: ignoring case, with
// Unicode's simple folding (the Kelvin sign is a k).
func repeatedKey(body []byte) (string, bool) {
	type level struct {
		keys      map[string]bool // nil for an array
		wantsName bool            // an object's next string is a key
	}
	var stack []level
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // a number too large for a float64 is still a token
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		top := len(stack) - 1
		switch key, isKey := tok.(string); {
		case isKey && top >= 0 && stack[top].wantsName:
			folded := foldKey(key)
			if stack[top].keys[folded] {
				return key, true
			}
			stack[top].keys[folded], stack[top].wantsName = true, false
			continue
		case tok == json.Delim('{'):
			stack = append(stack, level{keys: map[string]bool{}, wantsName: true})
			continue
		case tok == json.Delim('['):
			stack = append(stack, level{})
			continue
		case tok == json.Delim(']'), tok == json.Delim('}'):
			stack = stack[:top]
		}
		// A value ended: its object, if any, wants a name next.
		if top = len(stack) - 1; top >= 0 && stack[top].keys != nil {
			stack[top].wantsName = true
		}
	}
}

// foldKey is key in the one form of all the keys encoding/json takes for
// the same field: each rune the least of its simple case folding.
func foldKey(key string) string {
	return strings.Map(func(r rune) rune {
		for {
			f := unicode.SimpleFold(r)
			if f <= r {
				return f
			}
			r = f
		}
	}, key)
}

// unknownField returns the name in DisallowUnknownFields' error, which
// encoding/json gives only as text: json: unknown field "name".
func unknownField(err error) (string, bool) {
	msg := err.Error()
	i := strings.Index(msg, "unknown field ")
	if i < 0 {
		return "", false
	}
	name, uerr := strconv.QuotedPrefix(msg[i+len("unknown field "):])
	if uerr != nil {
		return "", false
	}
	name, uerr = strconv.Unquote(name)
	return name, uerr == nil
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
	case "slice", "array":
		return "an array"
	}
	return "of another type"
}

// SizeText words a byte count the way the limits are documented: 64 KiB,
// 2 MiB, 1 GiB.
func SizeText(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
