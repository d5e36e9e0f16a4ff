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
func SecretHash(secret string) string { return digestOf(secret).hash() }

// secretDigest is a secret's SHA-256: its SecretHash before the hex, a
// key that costs no allocation to make (the session cache's).
type secretDigest [sha256.Size]byte

// maxHashedOnStack is the longest secret digestOf hashes without an
// allocation: longer than any API secret or session token the service
// accepts.
const maxHashedOnStack = 256

// digestOf returns the SHA-256 of secret. A secret of up to
// maxHashedOnStack bytes is copied into a stack buffer to be hashed, as
// []byte(secret) would allocate.
func digestOf(secret string) secretDigest {
	var buf [maxHashedOnStack]byte
	if len(secret) <= len(buf) {
		return sha256.Sum256(append(buf[:0], secret...))
	}
	return sha256.Sum256([]byte(secret))
}

// hash is the SecretHash of the secret d is the digest of.
func (d secretDigest) hash() string { return hex.EncodeToString(d[:]) }

// digestOfHash is the digest a SecretHash encodes, or false if hash is not
// one.
func digestOfHash(hash string) (secretDigest, bool) {
	var d secretDigest
	if len(hash) != hex.EncodedLen(len(d)) {
		return d, false
	}
	_, err := hex.Decode(d[:], []byte(hash))
	return d, err == nil
}

// secretMatches compares a presented secret with a stored hash in constant
// time, without an allocation: the hex of the presented secret's digest
// and a copy of the stored hash are both on the stack.
func secretMatches(presented, storedHash string) bool {
	d := digestOf(presented)
	var presentedHash, stored [2 * sha256.Size]byte // hex
	hex.Encode(presentedHash[:], d[:])
	if len(storedHash) != len(stored) {
		return false // ConstantTimeCompare's answer for another length
	}
	copy(stored[:], storedHash)
	return subtle.ConstantTimeCompare(presentedHash[:], stored[:]) == 1
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
