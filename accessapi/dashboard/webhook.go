package dashboard

import (
	"net/http"
	"strconv"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// webhookPage is the data of one endpoint's page: its settings, and its
// delivery log a page at a time. Secret is set only in the answer that
// rotated it.
type webhookPage struct {
	Webhook webhookRow
	Events  []eventChoice
	Secret  string
	// Overlap is the rotation form's default, in seconds.
	Overlap, MaxOverlap int64
	Deliveries          []deliveryRow
	// After is the cursor this page of the log starts after ("" for the
	// newest), Next the one of the next page ("" on the last).
	After, Next string
}

// deliveryRow is one line of the delivery log.
type deliveryRow struct {
	ID         string
	Event      access.EventKind
	CreatedAt  time.Time
	Status     access.DeliveryStatus
	Attempts   int
	LastStatus int // 0 when no attempt got an answer
	LastError  string
	// NextAttemptAt is set while the delivery is pending.
	NextAttemptAt *time.Time
	// Redeliverable is false while attempts are pending: the service
	// refuses to redeliver those.
	Redeliverable bool
}

func deliveryRowOf(d *access.WebhookDelivery) deliveryRow {
	row := deliveryRow{ID: d.ID, Event: d.Event, CreatedAt: d.CreatedAt, Status: d.Status, Attempts: d.Attempts,
		LastStatus: d.LastStatus, LastError: d.LastError, Redeliverable: d.Status != access.DeliveryPending}
	if d.Status == access.DeliveryPending {
		next := d.NextAttemptAt
		row.NextAttemptAt = &next
	}
	return row
}

// deliveriesPerPage is how many deliveries a page of the log shows.
const deliveriesPerPage = 50

// showWebhook serves GET /apps/{app}/webhooks/{webhook}?after=.
func (s *Server) showWebhook(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	return s.renderWebhook(w, r, si, r.URL.Query().Get("after"), "")
}

// renderWebhook shows an endpoint with the page of its log after the
// cursor after; secret is its new secret, in the rotation's answer only.
func (s *Server) renderWebhook(w http.ResponseWriter, r *http.Request, si *signedIn, after, secret string) error {
	ctx, appID, webhookID := r.Context(), r.PathValue("app"), r.PathValue("webhook")
	app, err := si.svc.App(ctx, appID)
	if err != nil {
		return err
	}
	h, err := si.svc.Webhook(ctx, app.ID, webhookID)
	if err != nil {
		return err
	}
	log, err := si.svc.Deliveries(ctx, app.ID, h.ID, after, deliveriesPerPage)
	if err != nil {
		return err
	}
	data := webhookPage{Webhook: webhookRowOf(h, si.svc.Now()), Events: eventChoices(h.Events), Secret: secret,
		Overlap:    int64(access.DefaultWebhookSecretOverlap / time.Second),
		MaxOverlap: int64(access.MaxWebhookSecretOverlap / time.Second),
		Deliveries: make([]deliveryRow, len(log.Items)), After: after, Next: log.Next}
	for i := range log.Items {
		data.Deliveries[i] = deliveryRowOf(&log.Items[i])
	}
	p := page{Title: "Webhook endpoint", App: app, Data: data}
	if secret != "" {
		p.Notice = "Secret rotated. Copy it now: it is not shown again."
	}
	s.render(w, r, http.StatusOK, "webhook", p)
	return nil
}

// webhookPath is the dashboard path of the request's endpoint.
func webhookPath(r *http.Request) string {
	return "/apps/" + r.PathValue("app") + "/webhooks/" + r.PathValue("webhook")
}

// updateWebhook serves POST /apps/{app}/webhooks/{webhook}/settings: URL,
// events and enabled flag.
func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if err := parseForm(r, "events"); err != nil {
		return err
	}
	if _, err := si.svc.UpdateWebhook(r.Context(), r.PathValue("app"), r.PathValue("webhook"), webhookSettingsOf(r.PostForm)); err != nil {
		return err
	}
	return s.redirect(w, r, webhookPath(r))
}

// deleteWebhook serves POST /apps/{app}/webhooks/{webhook}/delete.
func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if err := si.svc.DeleteWebhook(r.Context(), r.PathValue("app"), r.PathValue("webhook")); err != nil {
		return err
	}
	return s.redirect(w, r, "/apps/"+r.PathValue("app")+"/webhooks")
}

// rotateWebhookSecret serves POST /apps/{app}/webhooks/{webhook}/rotate_secret:
// the new secret is shown in this answer only; the old one keeps signing
// for overlap_seconds (the service's default when the field is empty).
func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	overlap := access.DefaultWebhookSecretOverlap
	if v := r.PostFormValue("overlap_seconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return access.Invalid(access.FieldError{Field: "overlap_seconds", Message: "must be a whole number"})
		}
		if overlap, err = access.WebhookSecretOverlap(n); err != nil {
			return err
		}
	}
	h, err := si.svc.RotateWebhookSecret(r.Context(), r.PathValue("app"), r.PathValue("webhook"), overlap)
	if err != nil {
		return err
	}
	return s.renderWebhook(w, r, si, "", h.Secret)
}

// redeliver serves POST /apps/{app}/webhooks/{webhook}/deliveries/{delivery}/redeliver:
// a delivered or failed delivery is sent again as a new round of attempts.
func (s *Server) redeliver(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if _, err := si.svc.Redeliver(r.Context(), r.PathValue("app"), r.PathValue("webhook"), r.PathValue("delivery")); err != nil {
		return err
	}
	return s.redirect(w, r, webhookPath(r))
}
