package access

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Username limits.
const (
	MinUsernameLength = 3
	MaxUsernameLength = 64
)

// ValidateUsername applies the username rules: 3 to 64 characters, no control
// characters, no leading or trailing space.
func ValidateUsername(name string) *FieldError {
	n := utf8.RuneCountInString(name)
	switch {
	case !utf8.ValidString(name):
		return &FieldError{"username", "must be valid UTF-8"}
	case n < MinUsernameLength || n > MaxUsernameLength:
		return &FieldError{"username", "must be 3 to 64 characters long"}
	case strings.TrimSpace(name) != name:
		return &FieldError{"username", "must not start or end with a space"}
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return &FieldError{"username", "must not contain control characters"}
	}
	return nil
}

// UsernameKey is the form under which a username is unique in an
// application: names that differ only in case are the same user.
func UsernameKey(name string) string {
	return strings.ToLower(name)
}
