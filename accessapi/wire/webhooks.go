package wire

import "encoding/json"

// Webhook is an endpoint of an application. Secret, the Standard Webhooks
// signing secret ("whsec_…"), is in the answers of creation and rotation
// only.
type Webhook struct {
	ID        string   `json:"id"`
	AppID     string   `json:"app_id"`
	URL       string   `json:"url"`
	Events    []string `json:"events"`
	Enabled   bool     `json:"enabled"`
	CreatedAt string   `json:"created_at"`
	// PreviousSecretExpiresAt is, during a rotation's overlap, when the
	// previous secret stops signing deliveries.
	PreviousSecretExpiresAt *string `json:"previous_secret_expires_at,omitempty"`
	Secret                  string  `json:"secret,omitempty"`
}

// WebhookSecretRotation is the optional body of POST
// /apps/{id}/webhooks/{webhook}/rotate_secret.
type WebhookSecretRotation struct {
	// OverlapSeconds is how long the previous secret keeps signing
	// deliveries (0 to 604800; default 86400).
	OverlapSeconds *int64 `json:"overlap_seconds,omitempty"`
}

// ListName implements Listable.
func (Webhook) ListName() string { return "webhooks" }

// WebhookSettings is the body of POST /apps/{id}/webhooks (url and events
// required) and of PATCH /apps/{id}/webhooks/{webhook} (fields given are
// changed).
type WebhookSettings struct {
	URL     *string  `json:"url,omitempty"`
	Events  []string `json:"events,omitempty"`
	Enabled *bool    `json:"enabled,omitempty"`
}

// WebhookDelivery is one event sent (or to be sent) to an endpoint.
// Its ID is the webhook-id header of every attempt.
type WebhookDelivery struct {
	ID        string          `json:"id"`
	WebhookID string          `json:"webhook_id"`
	Event     string          `json:"event"`
	CreatedAt string          `json:"created_at"`
	Status    string          `json:"status"` // pending, delivered or failed
	Attempts  int             `json:"attempts"`
	Payload   json.RawMessage `json:"payload"`
	// NextAttemptAt is set while the delivery is pending.
	NextAttemptAt *string `json:"next_attempt_at"`
	// LastStatus is the HTTP status of the last attempt that got one.
	LastStatus *int    `json:"last_status"`
	LastError  *string `json:"last_error"`
	// AttemptLog is every attempt, in the answer about one delivery.
	AttemptLog []DeliveryAttempt `json:"attempt_log,omitempty"`
}

// ListName implements Listable.
func (WebhookDelivery) ListName() string { return "deliveries" }

// DeliveryAttempt is one attempt at a delivery.
type DeliveryAttempt struct {
	Number   int    `json:"number"`
	At       string `json:"at"`
	Finished bool   `json:"finished"`
	// StatusCode is the endpoint's HTTP status; null without an answer.
	StatusCode *int    `json:"status_code"`
	Error      *string `json:"error"`
	DurationMS int64   `json:"duration_ms"`
}
