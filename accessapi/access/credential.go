package access

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// credential is a verified username and password, remembered by a keyed
// hash so the password itself is never held.
type credential struct {
	userID string
}

// owner is the user a credential belongs to, for eviction by user.
func (c credential) owner() string { return c.userID }

// credentialKey is HMAC-SHA256 under a per-process random key of the
// application, username key and password.
func (s *Service) credentialKey(appID, usernameKey, password string) string {
	m := hmac.New(sha256.New, s.credKey)
	m.Write([]byte(appID))
	m.Write([]byte{0})
	m.Write([]byte(usernameKey))
	m.Write([]byte{0})
	m.Write([]byte(password))
	return hex.EncodeToString(m.Sum(nil))
}
