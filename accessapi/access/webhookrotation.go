package access

import (
	"context"
	"errors"
	"time"
)

// Rotating an endpoint's secret, as Standard Webhooks and Svix do it: the
// new secret signs at once, and for an overlap the old one signs too (a
// second value in webhook-signature, which every Standard Webhooks
// verifier accepts), so a receiver can switch secrets without rejecting a
// delivery. Deliveries and their log are untouched.

// DefaultWebhookSecretOverlap is how long the old secret keeps signing
// after a rotation unless the request says otherwise.
const DefaultWebhookSecretOverlap = 24 * time.Hour

// MaxWebhookSecretOverlap bounds the overlap of a rotation.
const MaxWebhookSecretOverlap = 7 * 24 * time.Hour

func invalidWebhookOverlap() error {
	return Invalid(FieldError{"overlap_seconds", "must be whole seconds from 0 to 604800 (7 days)"})
}

// WebhookSecretOverlap is the overlap of a rotation request's
// overlap_seconds, or a validation error when it is out of bounds.
func WebhookSecretOverlap(seconds int64) (time.Duration, error) {
	if seconds < 0 || seconds > int64(MaxWebhookSecretOverlap/time.Second) {
		return 0, invalidWebhookOverlap()
	}
	return time.Duration(seconds) * time.Second, nil
}

// RotateWebhookSecret gives an endpoint a new signing secret, which is
// returned once. Until overlap from now, deliveries are signed with the
// old secret as well; 0 stops it at once. Rotating during an overlap
// replaces the previous secret by the current one: an endpoint never has
// more than two.
func (s *Service) RotateWebhookSecret(ctx context.Context, appID, webhookID string, overlap time.Duration) (*NewWebhook, error) {
	if overlap < 0 || overlap > MaxWebhookSecretOverlap || overlap%time.Second != 0 {
		return nil, invalidWebhookOverlap()
	}
	w, err := s.Webhook(ctx, appID, webhookID)
	if err != nil {
		return nil, err
	}
	secret := NewWebhookSecret()
	sealed, err := SealWebhookSecret(WebhookKey(s.fileKey), w.ID, secret)
	if err != nil {
		return nil, err
	}
	// Both secrets are sealed with the endpoint's ID: the current one
	// becomes the previous one as it is.
	was, rotated := w.SealedSecret, *w
	rotated.SealedSecret, rotated.PreviousSealedSecret, rotated.PreviousSecretUntil = sealed, nil, time.Time{}
	if overlap > 0 {
		rotated.PreviousSealedSecret, rotated.PreviousSecretUntil = was, s.Now().Add(overlap)
	}
	err = s.commit(ctx, func(ctx context.Context) error {
		err := s.store.RotateWebhookSecret(ctx, &rotated, was)
		if errors.Is(err, ErrNotFound) {
			return Refusal(CodeConflict, "The endpoint's secret was rotated, or the endpoint deleted, meanwhile; read it again.")
		}
		return wrapStore(err, "rotating webhook secret")
	}, Event{Kind: EventWebhookRotated, AppID: appID, Target: w.ID, After: map[string]any{"overlap_seconds": int64(overlap / time.Second)}})
	if err != nil {
		return nil, err
	}
	return &NewWebhook{Webhook: rotated, Secret: secret}, nil
}
