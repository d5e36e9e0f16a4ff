package adminapi

import (
	"net/http"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// webhookView describes an endpoint at now; secret is set only on
// creation and rotation.
func webhookView(h *access.Webhook, secret string, now time.Time) wire.Webhook {
	v := wire.Webhook{ID: h.ID, AppID: h.AppID, URL: h.URL, Events: make([]string, len(h.Events)), Enabled: h.Enabled,
		CreatedAt: httpx.RFC3339(h.CreatedAt), Secret: secret}
	for i, k := range h.Events {
		v.Events[i] = string(k)
	}
	if h.PreviousSecretActive(now) {
		until := httpx.RFC3339(h.PreviousSecretUntil)
		v.PreviousSecretExpiresAt = &until
	}
	return v
}

func decodeWebhookSettings(w http.ResponseWriter, r *http.Request) (access.WebhookSettings, error) {
	var b wire.WebhookSettings
	if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
		return access.WebhookSettings{}, err
	}
	st := access.WebhookSettings{URL: b.URL, Enabled: b.Enabled}
	if b.Events != nil {
		st.Events = make([]access.EventKind, len(b.Events))
		for i, e := range b.Events {
			st.Events[i] = access.EventKind(e)
		}
	}
	return st, nil
}

// createWebhook serves POST /apps/{app}/webhooks: the secret is in this
// answer only.
func createWebhook(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	st, err := decodeWebhookSettings(w, r)
	if err != nil {
		return err
	}
	h, err := svc.CreateWebhook(r.Context(), r.PathValue("app"), st)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusCreated, webhookView(&h.Webhook, h.Secret, svc.Now()))
	return nil
}

// listWebhooks serves GET /apps/{app}/webhooks.
func listWebhooks(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	hs, err := svc.Webhooks(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	return writePage(w, hs, "", func(h *access.Webhook) wire.Webhook { return webhookView(h, "", svc.Now()) })
}

// showWebhook serves GET /apps/{app}/webhooks/{webhook}.
func showWebhook(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	h, err := svc.Webhook(r.Context(), r.PathValue("app"), r.PathValue("webhook"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, webhookView(h, "", svc.Now()))
	return nil
}

// updateWebhook serves PATCH /apps/{app}/webhooks/{webhook}.
func updateWebhook(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	st, err := decodeWebhookSettings(w, r)
	if err != nil {
		return err
	}
	h, err := svc.UpdateWebhook(r.Context(), r.PathValue("app"), r.PathValue("webhook"), st)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, webhookView(h, "", svc.Now()))
	return nil
}

// deleteWebhook serves DELETE /apps/{app}/webhooks/{webhook}.
func deleteWebhook(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.DeleteWebhook(r.Context(), r.PathValue("app"), r.PathValue("webhook")); err != nil {
		return err
	}
	return noContent(w)
}

// rotateWebhookSecret serves POST /apps/{app}/webhooks/{webhook}/rotate_secret:
// the new secret is in this answer only; the old one keeps signing for
// overlap_seconds (default a day).
func rotateWebhookSecret(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.WebhookSecretRotation
	if r.ContentLength != 0 {
		if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
			return err
		}
	}
	overlap := access.DefaultWebhookSecretOverlap
	if b.OverlapSeconds != nil {
		var err error
		if overlap, err = access.WebhookSecretOverlap(*b.OverlapSeconds); err != nil {
			return err
		}
	}
	h, err := svc.RotateWebhookSecret(r.Context(), r.PathValue("app"), r.PathValue("webhook"), overlap)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusOK, webhookView(&h.Webhook, h.Secret, svc.Now()))
	return nil
}

// listDeliveries serves GET /apps/{app}/webhooks/{webhook}/deliveries:
// the endpoint's delivery log, newest first, a page at a time.
func listDeliveries(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	page, err := pageQueryOf(r)
	if err != nil {
		return err
	}
	p, err := svc.Deliveries(r.Context(), r.PathValue("app"), r.PathValue("webhook"), page.after, page.limit)
	if err != nil {
		return err
	}
	return writePage(w, p.Items, p.Next, deliveryView)
}

// showDelivery serves GET /apps/{app}/webhooks/{webhook}/deliveries/{delivery}:
// the delivery with every attempt.
func showDelivery(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	d, attempts, err := svc.Delivery(r.Context(), r.PathValue("app"), r.PathValue("webhook"), r.PathValue("delivery"))
	if err != nil {
		return err
	}
	v := deliveryView(d)
	v.AttemptLog = make([]wire.DeliveryAttempt, len(attempts))
	for i, a := range attempts {
		v.AttemptLog[i] = wire.DeliveryAttempt{Number: a.Number, At: httpx.RFC3339(a.ClaimedAt), Finished: a.Finished,
			DurationMS: a.Duration.Milliseconds()}
		if a.StatusCode != 0 {
			v.AttemptLog[i].StatusCode = &a.StatusCode
		}
		if a.Error != "" {
			v.AttemptLog[i].Error = &a.Error
		}
	}
	httpx.WriteJSON(w, http.StatusOK, v)
	return nil
}

// redeliver serves POST /apps/{app}/webhooks/{webhook}/deliveries/{delivery}/redeliver:
// 202, the delivery as now scheduled.
func redeliver(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	d, err := svc.Redeliver(r.Context(), r.PathValue("app"), r.PathValue("webhook"), r.PathValue("delivery"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusAccepted, deliveryView(d))
	return nil
}

func deliveryView(d *access.WebhookDelivery) wire.WebhookDelivery {
	v := wire.WebhookDelivery{ID: d.ID, WebhookID: d.WebhookID, Event: string(d.Event), CreatedAt: httpx.RFC3339(d.CreatedAt),
		Status: string(d.Status), Attempts: d.Attempts, Payload: d.Payload}
	if d.Status == access.DeliveryPending {
		next := httpx.RFC3339(d.NextAttemptAt)
		v.NextAttemptAt = &next
	}
	if d.LastStatus != 0 {
		v.LastStatus = &d.LastStatus
	}
	if d.LastError != "" {
		v.LastError = &d.LastError
	}
	return v
}
