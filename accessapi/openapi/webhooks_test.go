package openapi

import "github.com/appaccess/appaccess/accessapi/access"

// webhookSchemas are the schemas of the webhook routes.
func webhookSchemas() obj {
	kinds := make([]string, len(access.WebhookEvents))
	for i, k := range access.WebhookEvents {
		kinds[i] = string(k)
	}
	events := obj{"type": "array", "minItems": 1, "items": obj{"type": "string", "enum": kinds}, "description": "The events it is sent."}
	settings := func() obj {
		return obj{
			"url":     obj{"type": "string", "maxLength": 2000, "description": "An absolute http or https URL; internal addresses are refused when sent unless allow_private_networks is set."},
			"events":  events,
			"enabled": boolean("Whether events are written for it (default true)."),
		}
	}
	return obj{
		"NewWebhook":      closed([]string{"url", "events"}, settings()),
		"WebhookSettings": closed(nil, settings()),
		"Webhook": closed([]string{"id", "app_id", "url", "events", "enabled", "created_at"}, obj{
			"id": uuid("The endpoint."), "app_id": uuid(""), "url": str(""), "events": arrayOf(obj{"type": "string"}),
			"enabled": boolean(""), "created_at": timestamp(""),
			"previous_secret_expires_at": timestamp("During a secret rotation's overlap, when the previous secret stops signing deliveries."),
			"secret":                     obj{"type": "string", "pattern": "^whsec_", "description": "The Standard Webhooks signing secret: shown only in the answers that created or rotated it."},
		}),
		"WebhookSecretRotation": closed(nil, obj{
			"overlap_seconds": obj{"type": "integer", "minimum": 0, "maximum": 604800,
				"description": "How long deliveries are signed with the previous secret too (default 86400, a day; 0 stops it at once)."},
		}),
		"WebhookPage": page("webhooks", "Webhook", false),
		"DeliveryAttempt": closed([]string{"number", "at", "finished", "status_code", "error", "duration_ms"}, obj{
			"number": obj{"type": "integer", "minimum": 1}, "at": timestamp("When it was claimed."),
			"finished":    boolean("Whether its result was recorded."),
			"status_code": nullable(obj{"type": "integer", "description": "The endpoint's HTTP status; null without an answer."}),
			"error":       nullable(str("Why it failed.")), "duration_ms": obj{"type": "integer", "minimum": 0},
		}),
		"WebhookDelivery": closed([]string{"id", "webhook_id", "event", "created_at", "status", "attempts", "payload", "next_attempt_at", "last_status", "last_error"}, obj{
			"id": uuid("A UUIDv7: the webhook-id header of every attempt, and the cursor."), "webhook_id": uuid(""),
			"event": str("The event kind."), "created_at": timestamp("When the event happened."),
			"status":          obj{"type": "string", "enum": []string{"pending", "delivered", "failed"}},
			"attempts":        obj{"type": "integer", "minimum": 0},
			"payload":         schemaRef("WebhookPayload"),
			"next_attempt_at": nullable(timestamp("When the next attempt is due; null unless pending.")),
			"last_status":     nullable(obj{"type": "integer", "description": "The HTTP status of the last attempt that got one."}),
			"last_error":      nullable(str("Why the last attempt failed.")),
			"attempt_log":     arrayOf(schemaRef("DeliveryAttempt")),
		}),
		"DeliveryPage": page("deliveries", "WebhookDelivery", true),
		"WebhookPayload": closed([]string{"type", "timestamp", "data"}, obj{
			"type": obj{"type": "string", "enum": kinds, "description": "The event kind."}, "timestamp": timestamp("When the event happened."),
			"data": closed([]string{"app_id"}, obj{
				"app_id": uuid("The application."), "user_id": uuid("The user it is about."), "username": str("The user's name, where the event knows it."),
				"license_id": uuid("The license (the first of a batch)."), "count": integer("Licenses in a batch."),
				"reason": str("A ban's reason."),
			}),
		}),
	}
}
