package adminapi

import (
	"net/http"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// decodeSettings reads the body of POST /apps and PATCH /apps/{app}.
func decodeSettings(w http.ResponseWriter, r *http.Request) (access.AppSettings, error) {
	var b wire.AppSettings
	if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
		return access.AppSettings{}, err
	}
	st := access.AppSettings{Name: b.Name, DeviceAuth: b.DeviceAuth, AnonymousAccess: b.AnonymousAccess,
		MaxDevices: b.MaxDevices, MinPasswordLength: b.MinPasswordLength, TokenRequiresHardwareID: b.TokenRequiresHardwareID,
		MaxSessions: b.MaxSessions}
	if b.SessionTTL != nil {
		d, err := time.ParseDuration(*b.SessionTTL)
		if err != nil {
			return st, access.Invalid(access.FieldError{Field: "session_ttl", Message: "must be a duration such as 24h or 90m"})
		}
		st.SessionTTL = &d
	}
	return st, nil
}

// createApp serves POST /apps.
func createApp(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	st, err := decodeSettings(w, r)
	if err != nil {
		return err
	}
	app, err := svc.CreateApp(r.Context(), st)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, appView(&app.App, app.APISecret))
	return nil
}

// listApps serves GET /apps.
func listApps(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	apps, err := svc.Apps(r.Context())
	if err != nil {
		return err
	}
	return writePage(w, apps, "", publicAppView)
}

// showApp serves GET /apps/{app}.
func showApp(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	app, err := svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, publicAppView(app))
	return nil
}

// updateApp serves PATCH /apps/{app}.
func updateApp(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	st, err := decodeSettings(w, r)
	if err != nil {
		return err
	}
	app, err := svc.UpdateApp(r.Context(), r.PathValue("app"), st)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, publicAppView(app))
	return nil
}

// deleteApp serves DELETE /apps/{app}.
func deleteApp(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.DeleteApp(r.Context(), r.PathValue("app")); err != nil {
		return err
	}
	return noContent(w)
}

// rotateSecret serves POST /apps/{app}/rotate_secret.
func rotateSecret(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	secret, err := svc.RotateSecret(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, wire.SecretRotation{APISecret: secret})
	return nil
}
