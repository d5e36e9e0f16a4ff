// Package webhook sends the deliveries of App Access's webhook outbox:
// signed as the Standard Webhooks specification says, from a dispatcher
// that claims each attempt with a unique insert, to destinations an SSRF
// guard allows. It has no Caddy imports; caddymodule starts it.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// The Standard Webhooks headers.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// secretKey is the HMAC key of a "whsec_" secret: its base64 part decoded.
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, access.WebhookSecretPrefix))
	if err != nil || len(key) == 0 {
		return nil, errors.New("the webhook secret is not whsec_ and base64")
	}
	return key, nil
}

// Sign returns the webhook-signature value of a message: "v1," and the
// base64 HMAC-SHA256, under the secret's key, of "<id>.<timestamp>.<body>"
// with the timestamp in Unix seconds.
func Sign(secret, id string, at time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, id, at.Unix(), body)), nil
}

// SignAll returns the webhook-signature value of a message signed with
// each secret, in order, space separated: what a rotation's overlap sends,
// and what Verify (like every Standard Webhooks verifier) accepts if any
// one matches.
func SignAll(secrets []string, id string, at time.Time, body []byte) (string, error) {
	sigs := make([]string, len(secrets))
	for i, secret := range secrets {
		sig, err := Sign(secret, id, at, body)
		if err != nil {
			return "", err
		}
		sigs[i] = sig
	}
	return strings.Join(sigs, " "), nil
}

func mac(key []byte, id string, ts int64, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Verify checks a message as a receiver does: one of the space-separated
// "v1,<signature>" values must match, in constant time, and the timestamp
// must be within tolerance of now.
func Verify(secret, id, timestamp, signatures string, body []byte, now time.Time, tolerance time.Duration) error {
	key, err := secretKey(secret)
	if err != nil {
		return err
	}
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("the %s header is not Unix seconds", HeaderTimestamp)
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return errors.New("the message timestamp is outside the tolerance")
	}
	want := mac(key, id, ts, body)
	for _, sig := range strings.Fields(signatures) {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(value)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no signature matches")
}
