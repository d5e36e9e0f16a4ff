package adminapi

import (
	"fmt"
	"net/http"
	"strconv"
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
	if b.OfflineTokenTTL != nil {
		d, err := time.ParseDuration(*b.OfflineTokenTTL)
		if err != nil {
			return st, access.Invalid(access.FieldError{Field: "offline_token_ttl", Message: "must be a duration such as 72h or 90m"})
		}
		st.OfflineTokenTTL = &d
	}
	if b.SessionTTL != nil {
		d, err := time.ParseDuration(*b.SessionTTL)
		if err != nil {
			return st, access.Invalid(access.FieldError{Field: "session_ttl", Message: "must be a duration such as 24h or 90m"})
		}
		st.SessionTTL = &d
	}
	if b.Throttle != nil {
		p, err := throttlePolicy(b.Throttle)
		if err != nil {
			return st, err
		}
		st.Throttle = &p
	}
	return st, nil
}

// throttlePolicy reads an application's throttling overrides.
func throttlePolicy(t *wire.Throttle) (access.ThrottlePolicy, error) {
	p := access.ThrottlePolicy{AccountAddressFree: t.AccountAddressFree, AddressFree: t.AddressFree, AccountFree: t.AccountFree,
		CodeFree: t.CodeFree, SignUpsPerAddress: t.SignUpsPerAddress}
	for _, d := range []struct {
		field string
		text  string
		to    *time.Duration
	}{{"throttle.first_delay", t.FirstDelay, &p.FirstDelay}, {"throttle.max_delay", t.MaxDelay, &p.MaxDelay}, {"throttle.window", t.Window, &p.Window}} {
		if d.text == "" {
			continue
		}
		v, err := time.ParseDuration(d.text)
		if err != nil || v <= 0 {
			return p, access.Invalid(access.FieldError{Field: d.field, Message: "must be a positive duration such as 1s or 1h"})
		}
		*d.to = v
	}
	return p, nil
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
	c, err := svc.AppCounts(r.Context(), app.ID)
	if err != nil {
		return err
	}
	keys, err := svc.SigningKeys(r.Context(), app.ID)
	if err != nil {
		return err
	}
	out := publicAppView(app)
	out.Counts = &wire.AppCounts{Licenses: c.Licenses, LicensesUsed: c.LicensesUsed, LicensesUnused: c.LicensesUnused,
		Users: c.Users, ActiveMembers: c.ActiveMembers}
	out.SigningKeys = SigningKeyViews(keys)
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// defaultActivityDays is how many days GET /apps/{app}/activity reports
// when the request does not say.
const defaultActivityDays = 14

// showActivity serves GET /apps/{app}/activity?days=: sign-ups and license
// activations per UTC day, the last days days up to today.
func showActivity(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	days := defaultActivityDays
	if v := r.URL.Query().Get("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return access.Invalid(access.FieldError{Field: "days", Message: fmt.Sprintf("must be a whole number from 1 to %d", access.MaxActivityDays)})
		}
		days = n
	}
	ds, err := svc.ActivityByDay(r.Context(), r.PathValue("app"), days)
	if err != nil {
		return err
	}
	out := wire.Activity{Days: make([]wire.ActivityDay, len(ds))}
	for i, d := range ds {
		out.Days[i] = wire.ActivityDay{Day: d.Day.Format(time.DateOnly), SignUps: d.SignUps, Activations: d.Activations}
	}
	httpx.WriteJSON(w, http.StatusOK, out)
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
