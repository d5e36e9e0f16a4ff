package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// webhooksPage is the data of an application's webhooks page; Created is
// set only in the answer that made an endpoint, with its secret.
type webhooksPage struct {
	Webhooks []webhookRow
	Events   []eventChoice
	Created  *access.NewWebhook
}

// webhookRow is what the pages show of an endpoint: never its secrets,
// sealed or not.
type webhookRow struct {
	ID        string
	URL       string
	Events    []access.EventKind
	Enabled   bool
	CreatedAt time.Time
	// PreviousSecretUntil is when the secret the last rotation replaced
	// stops signing; nil when it no longer does (or there is none).
	PreviousSecretUntil *time.Time
}

// webhookRowOf describes w as it stands at now.
func webhookRowOf(w *access.Webhook, now time.Time) webhookRow {
	row := webhookRow{ID: w.ID, URL: w.URL, Events: w.Events, Enabled: w.Enabled, CreatedAt: w.CreatedAt}
	if w.PreviousSecretActive(now) {
		until := w.PreviousSecretUntil
		row.PreviousSecretUntil = &until
	}
	return row
}

// eventChoice is one checkbox of the events an endpoint may subscribe to.
type eventChoice struct {
	Kind    access.EventKind
	Checked bool
}

// eventChoices are the checkboxes of access.WebhookEvents, those in
// subscribed checked.
func eventChoices(subscribed []access.EventKind) []eventChoice {
	cs := make([]eventChoice, len(access.WebhookEvents))
	for i, k := range access.WebhookEvents {
		cs[i] = eventChoice{Kind: k, Checked: slices.Contains(subscribed, k)}
	}
	return cs
}

// webhookSettingsOf reads an endpoint form (creation or settings): URL,
// the event checkboxes and the enabled checkbox. Every field is set, so
// unchecking every event is a choice the service refuses, not "leave the
// events as they are".
func webhookSettingsOf(form url.Values) access.WebhookSettings {
	u, on := form.Get("url"), form.Get("enabled") == "on"
	st := access.WebhookSettings{URL: &u, Enabled: &on, Events: make([]access.EventKind, len(form["event"]))}
	for i, e := range form["event"] {
		st.Events[i] = access.EventKind(e)
	}
	return st
}

// parseForm reads a urlencoded form, as a refusal when it cannot.
func parseForm(r *http.Request, field string) error {
	if err := r.ParseForm(); err != nil {
		return access.Invalid(access.FieldError{Field: field, Message: "could not be read"})
	}
	return nil
}

// webhooks serves GET /apps/{app}/webhooks.
func (s *Server) webhooks(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	return s.renderWebhooks(w, r, si, http.StatusOK, nil)
}

func (s *Server) renderWebhooks(w http.ResponseWriter, r *http.Request, si *signedIn, status int, created *access.NewWebhook) error {
	app, err := si.svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	hs, err := si.svc.Webhooks(r.Context(), app.ID)
	if err != nil {
		return err
	}
	now := si.svc.Now()
	rows := make([]webhookRow, len(hs))
	for i := range hs {
		rows[i] = webhookRowOf(&hs[i], now)
	}
	p := page{Title: "Webhooks", App: app, Data: webhooksPage{Webhooks: rows, Events: eventChoices(nil), Created: created}}
	if created != nil {
		p.Notice = "Endpoint created. Copy its signing secret now: it is not shown again."
	}
	s.render(w, r, status, "webhooks", p)
	return nil
}

// createWebhook serves POST /apps/{app}/webhooks: the endpoint's secret is
// in this answer only (not a redirect, so never in a URL).
func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if err := parseForm(r, "events"); err != nil {
		return err
	}
	h, err := si.svc.CreateWebhook(r.Context(), r.PathValue("app"), webhookSettingsOf(r.PostForm))
	if err != nil {
		return err
	}
	return s.renderWebhooks(w, r, si, http.StatusCreated, h)
}
