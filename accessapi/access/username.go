package access

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/secure/precis"
)

// Username limits.
const (
	MinUsernameLength = 3
	MaxUsernameLength = 64
)

// ValidateUsername applies the username rules: 3 to 64 characters, no
// leading, trailing or doubled space, and each space-separated part
// acceptable to PRECIS UsernameCaseMapped (RFC 8265), which refuses control
// and format characters (a zero-width space, a right-to-left override),
// other spaces, and text that breaks the bidi rule.
func ValidateUsername(name string) *FieldError {
	n := utf8.RuneCountInString(name)
	switch {
	case !utf8.ValidString(name):
		return &FieldError{"username", "must be valid UTF-8"}
	case n < MinUsernameLength || n > MaxUsernameLength:
		return &FieldError{"username", "must be 3 to 64 characters long"}
	case strings.TrimSpace(name) != name:
		return &FieldError{"username", "must not start or end with a space"}
	case strings.Contains(name, "  "):
		return &FieldError{"username", "must not contain two spaces in a row"}
	}
	if _, ok := usernameKey(name); !ok {
		return &FieldError{"username", "must be letters, digits and symbols, without control, format or invisible characters"}
	}
	return nil
}

// UsernameKey is the form under which a username is unique in an
// application: each space-separated part under PRECIS UsernameCaseMapped
// (width-mapped, lower-cased, NFC), with the Cyrillic and Greek lookalikes
// of Latin letters replaced by the Latin letter. "Alice", "ＡＬＩＣＥ" and
// "аlice" (with a Cyrillic а) are one user; so are NFC and NFD "Café". A
// name that ValidateUsername refuses gets a key no valid name has.
func UsernameKey(name string) string {
	if key, ok := usernameKey(name); ok {
		return key
	}
	return "\x00" + name
}

func usernameKey(name string) (string, bool) {
	parts := strings.Split(name, " ")
	for i, p := range parts {
		k, err := precis.UsernameCaseMapped.String(p)
		if err != nil {
			return "", false
		}
		parts[i] = strings.Map(latinLookalike, k)
	}
	return strings.Join(parts, " "), true
}

// latinLookalike maps a lower-case Cyrillic or Greek letter that looks like
// a Latin one to that Latin letter (a subset of Unicode's confusables, UTS
// #39, for the scripts mixed into Latin names in practice).
func latinLookalike(r rune) rune {
	switch r {
	case 'а', 'α':
		return 'a'
	case 'с', 'ϲ':
		return 'c'
	case 'ԁ':
		return 'd'
	case 'е':
		return 'e'
	case 'ɡ':
		return 'g'
	case 'һ':
		return 'h'
	case 'і', 'ι', 'ı':
		return 'i'
	case 'ј', 'ϳ':
		return 'j'
	case 'к', 'κ':
		return 'k'
	case 'ӏ':
		return 'l'
	case 'о', 'ο':
		return 'o'
	case 'р', 'ρ':
		return 'p'
	case 'ԛ':
		return 'q'
	case 'ѕ':
		return 's'
	case 'υ':
		return 'u'
	case 'ν':
		return 'v'
	case 'ԝ':
		return 'w'
	case 'х', 'χ':
		return 'x'
	case 'у', 'γ':
		return 'y'
	}
	return r
}
