package access

import (
	"encoding/base64"
	"strings"
)

// Page is one page of a listing: the items, and the cursor that continues
// after them ("" when this is the last page).
type Page[T any] struct {
	Items []T
	Next  string
}

// clampPage returns the page size a listing uses for limit.
func clampPage(limit int) int {
	if limit <= 0 {
		return 100
	}
	return min(limit, MaxPageSize)
}

// MaxPageSize bounds one page of a listing.
const MaxPageSize = 1000

// UserCursor is the position in a listing of users ordered by username
// key, then ID.
type UserCursor struct {
	UsernameKey string
	UserID      string
}

// String encodes the cursor for a URL: the base64url username key, a dot,
// the user ID.
func (c UserCursor) String() string {
	if c == (UserCursor{}) {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(c.UsernameKey)) + "." + c.UserID
}

// ParseUserCursor decodes a cursor made by UserCursor.String; ok is false
// when s is not one.
func ParseUserCursor(s string) (c UserCursor, ok bool) {
	if s == "" {
		return UserCursor{}, true
	}
	k, id, found := strings.Cut(s, ".")
	key, err := base64.RawURLEncoding.DecodeString(k)
	if !found || err != nil || id == "" {
		return UserCursor{}, false
	}
	return UserCursor{UsernameKey: string(key), UserID: id}, true
}

// PrefixEnd is the least string greater than every string that starts with
// prefix and has no U+10FFFF: a listing by prefix is the range
// [prefix, PrefixEnd(prefix)).
func PrefixEnd(prefix string) string { return prefix + "\U0010FFFF" }
