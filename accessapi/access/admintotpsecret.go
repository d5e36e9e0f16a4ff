package access

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Administrators' TOTP secrets must be kept to verify codes, so they are
// stored sealed with AES-256-GCM under the TOTP key, a key derived from the
// file key with HKDF (as the webhook and signing-key keys are), and bound
// to the administrator's username: a copy of the store alone does not
// reveal them, and a sealed secret copied to another administrator does
// not open. The stored form is sealedTOTPPrefix and the unpadded base64url
// of the nonce and sealed bytes. A secret written before secrets were
// sealed is the base32 secret itself (base32 has no ':', so the two cannot
// be confused); it is read as it is and sealed when the administrator is
// next written (a TOTP change, or a sign-in with a code).

// sealedTOTPPrefix starts every sealed TOTP secret.
const sealedTOTPPrefix = "sealed1:"

// totpKeyOf derives the key TOTP secrets are sealed under from the file
// key; all zeros without one (as weak as storing them plain, for tests).
// Every instance on one store must share the file key.
func totpKeyOf(fileKey []byte) []byte {
	return deriveKey(fileKey, "app-access admin TOTP secrets v1")
}

// totpAAD binds a sealed TOTP secret to its administrator.
func totpAAD(username string) []byte {
	return []byte("app-access admin TOTP v1\x00" + username)
}

// sealTOTPSecret returns the stored form of an administrator's secret.
func sealTOTPSecret(key []byte, username, secret string) (string, error) {
	sealed, err := sealSecret(key, []byte(secret), totpAAD(username))
	if err != nil {
		return "", fmt.Errorf("sealing the TOTP secret of %s: %w", username, err)
	}
	return sealedTOTPPrefix + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// openTOTPSecret returns the base32 secret of a stored one: sealed, or in
// the clear when written before secrets were sealed. Empty stays empty.
func openTOTPSecret(key []byte, username, stored string) (string, error) {
	rest, sealed := strings.CutPrefix(stored, sealedTOTPPrefix)
	if !sealed {
		return stored, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return "", fmt.Errorf("the TOTP secret of %s is damaged: %w", username, err)
	}
	plain, err := openSecret(key, raw, totpAAD(username))
	if err != nil {
		return "", fmt.Errorf("opening the TOTP secret of %s (another file key?): %w", username, err)
	}
	return string(plain), nil
}

// totpSealed reports whether a stored secret is sealed (or empty).
func totpSealed(stored string) bool {
	return stored == "" || strings.HasPrefix(stored, sealedTOTPPrefix)
}
