package access

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// License is a single-use code that grants membership time or lifetime access.
// Its code is never stored: the ID is derived from the application and a hash
// of the normalised code, so a code is found by recomputing its ID.
type License struct {
	ID        string
	AppID     string
	CodeHint  string // the last four characters, for support
	Grant     Grant
	Note      string
	CreatedAt time.Time
}

// LicenseUse records that a license was consumed: the unique key that makes a
// code single-use. It carries what is needed to finish the activation (and,
// for a license sign-up, the user) if a later write did not happen.
type LicenseUse struct {
	LicenseID    string
	AppID        string
	UserID       string
	Username     string
	ActivationID string
	OccurredAt   time.Time
	SignUp       bool
}

// crockford is Crockford's base32 alphabet: no I, L, O or U.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewLicenseCode returns a new code: five groups of five Crockford base32
// characters, 125 random bits.
func NewLicenseCode() string {
	var b [25]byte
	_, _ = rand.Read(b[:])
	var sb strings.Builder
	for i, v := range b {
		if i > 0 && i%5 == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(crockford[v&31])
	}
	return sb.String()
}

// NormalizeLicenseCode returns the form codes are compared in: upper case,
// without dashes and spaces.
func NormalizeLicenseCode(code string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', ' ', '\t':
			return -1
		}
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, code)
}

// MaxLicenseCodeLength bounds an imported or presented code.
const MaxLicenseCodeLength = 128

var licenseNamespace = uuid.MustParse("5f0c1a4e-9a43-4c52-8f6e-0d3a3b8e9d21")

// LicenseID returns the ID of the license that code is in the application, or
// "" if code cannot be a code at all. The ID is derived from an HMAC-SHA256
// of the normalised code under key, a server key kept out of the store, so
// a copy of the store does not let anyone test guesses of the codes.
func LicenseID(key []byte, appID, code string) string {
	n := NormalizeLicenseCode(code)
	if n == "" || len(n) > MaxLicenseCodeLength {
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(appID))
	m.Write([]byte{0})
	m.Write([]byte(n))
	return uuid.NewSHA1(licenseNamespace, m.Sum(nil)).String()
}

// MinImportedCodeBits is the least estimated entropy an imported code must
// carry (generated codes carry 125 bits).
const MinImportedCodeBits = 80

// CodeEntropyBits estimates the entropy of a normalised code, as if each
// character were drawn at random from the alphabet of the character
// classes it uses (10 digits, 26 letters, 33 other symbols), counting an
// alphabet no larger than four times the distinct characters present, so
// that repeated patterns ("ABABAB...") count for little.
func CodeEntropyBits(normalized string) float64 {
	classes := map[int]bool{}
	distinct := map[rune]bool{}
	for _, r := range normalized {
		distinct[r] = true
		switch {
		case '0' <= r && r <= '9':
			classes[10] = true
		case 'A' <= r && r <= 'Z':
			classes[26] = true
		default:
			classes[33] = true
		}
	}
	alphabet := 0
	for size := range classes {
		alphabet += size
	}
	alphabet = min(alphabet, 4*len(distinct))
	if alphabet < 2 {
		return 0
	}
	return float64(utf8.RuneCountInString(normalized)) * math.Log2(float64(alphabet))
}

// codeHint returns the last four characters of a normalised code, or fewer
// for a code under 16 characters: never more than a quarter of it.
func codeHint(code string) string {
	n := NormalizeLicenseCode(code)
	return n[len(n)-min(4, len(n)/4):]
}

var activationNamespace = uuid.MustParse("8d2f6f7e-3b1a-4f0e-9a8c-2c6b1e7d4a90")

// licenseActivationID is the ledger ID of a license's activation. It is
// derived, so a repeated write of the same activation is recognised.
func licenseActivationID(licenseID string) string {
	return uuid.NewSHA1(activationNamespace, []byte(licenseID)).String()
}
