package access

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"
)

// Webhook secrets are Standard Webhooks secrets: "whsec_" and the base64
// of 32 random bytes, which are the HMAC-SHA256 key. The server must keep
// them to sign, so they are stored sealed with AES-256-GCM under the
// webhook key, a key derived from the file key with HKDF (as the license
// code key is): a copy of the store alone does not reveal them.

// WebhookSecretPrefix starts every webhook secret.
const WebhookSecretPrefix = "whsec_"

// NewWebhookSecret returns a new signing secret.
func NewWebhookSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// WebhookKey is the key webhook secrets are sealed under, derived from the
// file key; all zeros without one (as weak as storing them plain, for
// tests). Every instance on one store derives the same key.
func WebhookKey(fileKey []byte) []byte {
	return deriveKey(fileKey, "app-access webhook secrets v1")
}

// SealWebhookSecret encrypts an endpoint's secret under key: a 12-byte
// random nonce, then the sealed secret, with the endpoint's ID
// authenticated so a sealed secret cannot be moved to another endpoint.
func SealWebhookSecret(key []byte, webhookID, secret string) ([]byte, error) {
	return sealSecret(key, []byte(secret), []byte(webhookID))
}

// OpenWebhookSecret returns the secret SealWebhookSecret sealed.
func OpenWebhookSecret(key []byte, w *Webhook) (string, error) {
	plain, err := openSecret(key, w.SealedSecret, []byte(w.ID))
	if err != nil {
		return "", fmt.Errorf("opening the secret of webhook %s (another file key?): %w", w.ID, err)
	}
	return string(plain), nil
}

// OpenWebhookSecrets returns the secrets a delivery at now is signed with:
// the current one, then the previous one while its overlap lasts.
func OpenWebhookSecrets(key []byte, w *Webhook, now time.Time) ([]string, error) {
	current, err := OpenWebhookSecret(key, w)
	if err != nil {
		return nil, err
	}
	if !w.PreviousSecretActive(now) {
		return []string{current}, nil
	}
	previous, err := openSecret(key, w.PreviousSealedSecret, []byte(w.ID))
	if err != nil {
		return nil, fmt.Errorf("opening the previous secret of webhook %s (another file key?): %w", w.ID, err)
	}
	return []string{current, string(previous)}, nil
}
