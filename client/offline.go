package client

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrTokenExpired: an offline token is not valid at the time given (past
// its valid-until, or issued later than that time allows).
var ErrTokenExpired = errors.New("offline token not valid at this time")

// ErrTokenWrongDevice: an offline token is held to another hardware id.
var ErrTokenWrongDevice = errors.New("offline token held to another device")

// ErrTokenWrongApp: an offline token is another application's
// (VerifyAppOfflineToken).
var ErrTokenWrongApp = errors.New("offline token of another application")

// ErrBadPublicKey: a public key given to VerifyOfflineToken is not an
// Ed25519 public key of ed25519.PublicKeySize (32) bytes.
var ErrBadPublicKey = errors.New("not an Ed25519 public key")

// OfflineToken is an issued offline license token.
type OfflineToken struct {
	// Token is aat1.<payload>.<signature>: keep it, and check it with
	// VerifyOfflineToken while offline.
	Token      string    `json:"token"`
	ValidUntil time.Time `json:"valid_until"`
}

// OfflineLicense is what a verified offline token says.
type OfflineLicense struct {
	KeyID string `json:"kid"`
	// AppID is the application the token was issued for: compare it with
	// yours when you verify with the keys of more than one application
	// (VerifyAppOfflineToken does).
	AppID      string `json:"app"`
	UserID     string `json:"sub"`
	Username   string `json:"username"`
	Membership struct {
		IsActive   bool       `json:"is_active"`
		IsLifetime bool       `json:"is_lifetime"`
		ExpiresAt  *time.Time `json:"expires_at"`
	} `json:"membership"`
	// HardwareID is the device the token is held to, if any.
	HardwareID string `json:"hwid"`
	// IssuedAt and ValidUntil are Unix seconds.
	IssuedAt   int64 `json:"iat"`
	ValidUntil int64 `json:"exp"`
}

// OfflineToken asks for an offline license token of the user auth
// authenticates (POST /auth/offline_token). With device authentication
// the client's hardware id is sent (WithHardwareID), with every form of
// auth, a session token included, and the token is held to it.
func (c *Client) OfflineToken(ctx context.Context, auth Auth) (*OfflineToken, error) {
	var t OfflineToken
	r := request{method: "POST", path: "/auth/offline_token", auth: auth}
	if _, err := c.do(ctx, r, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// offlineSkew is how far before its issue time a token is accepted, for a
// client clock that runs behind the server's.
const offlineSkew = 5 * time.Minute

// VerifyOfflineToken checks an offline token without the network: its
// signature by one of the application's public keys (pass every published
// one), its validity at now, and, when it is held to a device, that
// hardwareID is that device. A bad token wraps ErrBadSignature; an expired
// one ErrTokenExpired; another device ErrTokenWrongDevice. A key that is
// not 32 bytes long (ed25519.PublicKeySize; a private key passed by
// mistake is 64) is an error wrapping ErrBadPublicKey, whatever the token.
//
// It does not check the application: signing keys are per application,
// and a token signed by any of keys is accepted. A client that passes the
// keys of more than one application would accept one application's token
// as another's: it must compare the returned license's AppID with the
// application it expects, or call VerifyAppOfflineToken, which does.
func VerifyOfflineToken(token string, keys []ed25519.PublicKey, hardwareID string, now time.Time) (*OfflineLicense, error) {
	for i, k := range keys {
		if len(k) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("client: offline token: key %d is %d bytes, want %d bytes: %w", i, len(k), ed25519.PublicKeySize, ErrBadPublicKey)
		}
	}
	rest, ok := strings.CutPrefix(token, "aat1.")
	payloadPart, sigPart, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 {
		return nil, fmt.Errorf("client: offline token: %w: not aat1.<payload>.<signature>", ErrBadSignature)
	}
	payload, err := base64.RawURLEncoding.DecodeString(payloadPart)
	if err != nil {
		return nil, fmt.Errorf("client: offline token: %w: payload encoding", ErrBadSignature)
	}
	sig, err := base64.RawURLEncoding.DecodeString(sigPart)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("client: offline token: %w: signature encoding", ErrBadSignature)
	}
	var l OfflineLicense
	if err := json.Unmarshal(payload, &l); err != nil {
		return nil, fmt.Errorf("client: offline token: %w: payload: %v", ErrBadSignature, err)
	}
	var key ed25519.PublicKey
	for _, k := range keys {
		if KeyID(k) == l.KeyID {
			key = k
		}
	}
	if key == nil {
		return nil, fmt.Errorf("client: offline token: %w: signed by unknown key %q", ErrBadSignature, l.KeyID)
	}
	if !ed25519.Verify(key, []byte("aat1."+payloadPart), sig) {
		return nil, fmt.Errorf("client: offline token: %w: the signature does not match", ErrBadSignature)
	}
	if !now.Before(time.Unix(l.ValidUntil, 0)) || now.Before(time.Unix(l.IssuedAt, 0).Add(-offlineSkew)) {
		return nil, fmt.Errorf("client: offline token valid %v to %v: %w", time.Unix(l.IssuedAt, 0).UTC(), time.Unix(l.ValidUntil, 0).UTC(), ErrTokenExpired)
	}
	if l.HardwareID != "" && l.HardwareID != hardwareID {
		return nil, fmt.Errorf("client: offline token: %w", ErrTokenWrongDevice)
	}
	return &l, nil
}

// VerifyAppOfflineToken is VerifyOfflineToken for the application appID:
// a token that verifies but is another application's (its AppID is not
// appID) is refused with an error wrapping ErrTokenWrongApp. A client that
// ships the keys of more than one application should verify with it.
func VerifyAppOfflineToken(appID, token string, keys []ed25519.PublicKey, hardwareID string, now time.Time) (*OfflineLicense, error) {
	l, err := VerifyOfflineToken(token, keys, hardwareID, now)
	if err != nil {
		return nil, err
	}
	if l.AppID != appID {
		return nil, fmt.Errorf("client: offline token of application %q, want %q: %w", l.AppID, appID, ErrTokenWrongApp)
	}
	return l, nil
}
