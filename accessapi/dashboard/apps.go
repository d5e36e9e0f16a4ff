package dashboard

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// appPage is the data of the application page; Secret is set only in the
// answer that made it.
type appPage struct {
	Secret string
	Counts access.AppCounts
	// SigningKeys are the published keys (public halves), oldest first;
	// the last is active.
	SigningKeys []signingKeyRow
}

// signingKeyRow is one published signing key on the application page.
type signingKeyRow struct {
	ID, PublicKey string
	CreatedAt     time.Time
	Active        bool
}

// signingKeyRows shows an application's published keys.
func signingKeyRows(keys []access.SigningKey) []signingKeyRow {
	rows := make([]signingKeyRow, len(keys))
	for i, k := range keys {
		rows[i] = signingKeyRow{ID: k.ID, PublicKey: base64.StdEncoding.EncodeToString(k.PublicKey), CreatedAt: k.CreatedAt,
			Active: i == len(keys)-1}
	}
	return rows
}

// showApp serves GET /apps/{app}.
func (s *Server) showApp(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	app, err := si.svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	c, err := si.svc.AppCounts(r.Context(), app.ID)
	if err != nil {
		return err
	}
	keys, err := si.svc.SigningKeys(r.Context(), app.ID)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "app", page{Title: app.Name, App: app, Data: appPage{Counts: c, SigningKeys: signingKeyRows(keys)}})
	return nil
}

// rotateSigningKey serves POST /apps/{app}/signing_keys: a new active key;
// the old ones stay published until retired.
func (s *Server) rotateSigningKey(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if _, err := si.svc.RotateSigningKey(r.Context(), r.PathValue("app")); err != nil {
		return err
	}
	return s.redirect(w, r, "/apps/"+r.PathValue("app"))
}

// retireSigningKey serves POST /apps/{app}/signing_keys/{kid}/retire.
func (s *Server) retireSigningKey(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if err := si.svc.RetireSigningKey(r.Context(), r.PathValue("app"), r.PathValue("kid")); err != nil {
		return err
	}
	return s.redirect(w, r, "/apps/"+r.PathValue("app"))
}

// updateApp serves POST /apps/{app}/settings.
func (s *Server) updateApp(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	name := r.PostFormValue("name")
	deviceAuth := r.PostFormValue("device_auth") == "on"
	anonymous := r.PostFormValue("anonymous_access") == "on"
	st := access.AppSettings{Name: &name, DeviceAuth: &deviceAuth, AnonymousAccess: &anonymous}
	for field, to := range map[string]**int{"max_devices": &st.MaxDevices, "min_password_length": &st.MinPasswordLength, "max_sessions": &st.MaxSessions} {
		if v := r.PostFormValue(field); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return access.Invalid(access.FieldError{Field: field, Message: "must be a whole number"})
			}
			*to = &n
		}
	}
	if v := r.PostFormValue("session_ttl"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return access.Invalid(access.FieldError{Field: "session_ttl", Message: "must be a duration such as 24h"})
		}
		st.SessionTTL = &d
	}
	app, err := si.svc.UpdateApp(r.Context(), r.PathValue("app"), st)
	if err != nil {
		return err
	}
	return s.redirect(w, r, "/apps/"+app.ID)
}

// rotateSecret serves POST /apps/{app}/rotate_secret: the new secret is
// shown on this answer only.
func (s *Server) rotateSecret(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	secret, err := si.svc.RotateSecret(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	app, err := si.svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "app", page{Title: app.Name, App: app,
		Notice: "Secret rotated. Copy it now: it is not shown again.", Data: appPage{Secret: secret}})
	return nil
}
