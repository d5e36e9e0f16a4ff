package dashboard

import (
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
	s.render(w, r, http.StatusOK, "app", page{Title: app.Name, App: app, Data: appPage{Counts: c}})
	return nil
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
