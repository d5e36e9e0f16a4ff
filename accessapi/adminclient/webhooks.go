package adminclient

import (
	"context"
	"net/http"
	"time"

	"github.com/appaccess/appaccess/accessapi/wire"
)

// CreateWebhook calls POST /apps/{app}/webhooks: the answer holds the only
// copy of the endpoint's signing secret.
func (c *Client) CreateWebhook(ctx context.Context, appID string, req wire.WebhookSettings) (*wire.Webhook, error) {
	var out wire.Webhook
	return &out, c.send(ctx, http.MethodPost, "/apps/"+seg(appID)+"/webhooks", req, &out)
}

// Webhooks calls GET /apps/{app}/webhooks.
func (c *Client) Webhooks(ctx context.Context, appID string) (*wire.Page[wire.Webhook], error) {
	var out wire.Page[wire.Webhook]
	return &out, c.get(ctx, "/apps/"+seg(appID)+"/webhooks", nil, &out)
}

// UpdateWebhook calls PATCH /apps/{app}/webhooks/{webhook}.
func (c *Client) UpdateWebhook(ctx context.Context, appID, webhookID string, req wire.WebhookSettings) (*wire.Webhook, error) {
	var out wire.Webhook
	return &out, c.send(ctx, http.MethodPatch, "/apps/"+seg(appID)+"/webhooks/"+seg(webhookID), req, &out)
}

// DeleteWebhook calls DELETE /apps/{app}/webhooks/{webhook}.
func (c *Client) DeleteWebhook(ctx context.Context, appID, webhookID string) error {
	return c.del(ctx, "/apps/"+seg(appID)+"/webhooks/"+seg(webhookID))
}

// RotateWebhookSecret calls POST /apps/{app}/webhooks/{webhook}/rotate_secret:
// the answer holds the only copy of the new secret. A nil overlap takes
// the server's default (a day).
func (c *Client) RotateWebhookSecret(ctx context.Context, appID, webhookID string, overlap *time.Duration) (*wire.Webhook, error) {
	var req wire.WebhookSecretRotation
	if overlap != nil {
		seconds := int64(*overlap / time.Second)
		req.OverlapSeconds = &seconds
	}
	var out wire.Webhook
	return &out, c.send(ctx, http.MethodPost, "/apps/"+seg(appID)+"/webhooks/"+seg(webhookID)+"/rotate_secret", req, &out)
}

// Deliveries calls GET /apps/{app}/webhooks/{webhook}/deliveries: a page of
// the delivery log, newest first.
func (c *Client) Deliveries(ctx context.Context, appID, webhookID, after string, limit int) (*wire.Page[wire.WebhookDelivery], error) {
	var out wire.Page[wire.WebhookDelivery]
	return &out, c.get(ctx, "/apps/"+seg(appID)+"/webhooks/"+seg(webhookID)+"/deliveries", pageValues(after, limit), &out)
}

// Delivery calls GET /apps/{app}/webhooks/{webhook}/deliveries/{delivery}:
// the delivery with every attempt.
func (c *Client) Delivery(ctx context.Context, appID, webhookID, deliveryID string) (*wire.WebhookDelivery, error) {
	var out wire.WebhookDelivery
	return &out, c.get(ctx, "/apps/"+seg(appID)+"/webhooks/"+seg(webhookID)+"/deliveries/"+seg(deliveryID), nil, &out)
}

// Redeliver calls POST /apps/{app}/webhooks/{webhook}/deliveries/{delivery}/redeliver.
func (c *Client) Redeliver(ctx context.Context, appID, webhookID, deliveryID string) (*wire.WebhookDelivery, error) {
	var out wire.WebhookDelivery
	return &out, c.send(ctx, http.MethodPost, "/apps/"+seg(appID)+"/webhooks/"+seg(webhookID)+"/deliveries/"+seg(deliveryID)+"/redeliver", nil, &out)
}
