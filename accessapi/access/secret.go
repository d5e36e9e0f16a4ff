package access

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// randomToken returns n random bytes, base64url encoded, behind prefix.
func randomToken(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// SecretHash is the stored form of a high-entropy secret (an API secret or a
// session token): SHA-256, hex encoded. High entropy makes a slow hash unneeded.
func SecretHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// secretMatches compares a presented secret with a stored hash in constant time.
func secretMatches(presented, storedHash string) bool {
	return subtle.ConstantTimeCompare([]byte(SecretHash(presented)), []byte(storedHash)) == 1
}

// NewAPIKey returns a new public application key.
func NewAPIKey() string { return randomToken("ak_", 18) }

// NewAPISecret returns a new application secret (256 random bits).
func NewAPISecret() string { return randomToken("as_", 32) }

// NewSessionToken returns a new session token (256 random bits).
func NewSessionToken() string { return randomToken("st_", 32) }

// MaxHardwareIDLength bounds a hardware id.
const MaxHardwareIDLength = 256

// validHardwareID reports whether id can be a hardware id: 1 to 256 bytes of
// printable text, compared exactly.
func validHardwareID(id string) bool {
	if id == "" || len(id) > MaxHardwareIDLength || strings.TrimSpace(id) != id {
		return false
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
