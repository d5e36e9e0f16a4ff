// Package adminapi serves App Access's management API: applications,
// licenses, users, variables and files. Caddy mounts it under /app_access/
// on its admin endpoint, whose own access controls protect it.
package adminapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
)

// Prefix is where the routes live.
const Prefix = "/app_access"

// ServiceFunc finds the running service for a request; it fails while none
// runs.
type ServiceFunc func() (*access.Service, error)

// Handler serves the management API.
type Handler struct {
	service ServiceFunc
	logger  *zap.Logger
	mux     *http.ServeMux
}

// NewHandler returns the management API over the services service finds.
func NewHandler(service ServiceFunc, logger *zap.Logger) *Handler {
	if logger == nil {
		logger = zap.NewNop()
	}
	h := &Handler{service: service, logger: logger, mux: http.NewServeMux()}
	type route = func(http.ResponseWriter, *http.Request, *access.Service) error
	for pattern, fn := range map[string]route{
		"GET /health":                              h.health,
		"POST /apps":                               h.createApp,
		"GET /apps":                                h.listApps,
		"GET /apps/{app}":                          h.showApp,
		"PATCH /apps/{app}":                        h.updateApp,
		"DELETE /apps/{app}":                       h.deleteApp,
		"POST /apps/{app}/rotate_secret":           h.rotateSecret,
		"POST /apps/{app}/licenses":                h.createLicenses,
		"GET /apps/{app}/licenses":                 h.listLicenses,
		"GET /apps/{app}/licenses/{license}":       h.showLicense,
		"DELETE /apps/{app}/licenses/{license}":    h.deleteLicense,
		"GET /apps/{app}/users":                    h.listUsers,
		"GET /apps/{app}/users/{user}":             h.showUser,
		"DELETE /apps/{app}/users/{user}":          userAction((*access.Service).DeleteUser),
		"POST /apps/{app}/users/{user}/ban":        h.banUser,
		"POST /apps/{app}/users/{user}/unban":      userAction((*access.Service).UnbanUser),
		"DELETE /apps/{app}/users/{user}/devices":  userAction((*access.Service).ResetDevices),
		"DELETE /apps/{app}/users/{user}/sessions": userAction((*access.Service).EndSessions),
		"POST /apps/{app}/users/{user}/grant":      h.grant,
		"POST /apps/{app}/users/{user}/password":   h.resetPassword,
		"GET /apps/{app}/variables":                h.listVariables,
		"PUT /apps/{app}/variables/{name}":         h.setVariable,
		"DELETE /apps/{app}/variables/{name}":      h.deleteVariable,
		"POST /apps/{app}/files":                   h.uploadFile,
		"GET /apps/{app}/files":                    h.listFiles,
		"DELETE /apps/{app}/files/{file}":          h.deleteFile,
	} {
		h.mux.Handle(pattern, h.wrap(fn))
	}
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		clientapi.WriteProblem(w, logger, access.Refusal(access.CodeNotFound, "There is no such management route."))
	})
	return h
}

// ServeHTTP serves a request whose path starts with Prefix.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r2 := r.Clone(r.Context())
	r2.URL.Path = r.URL.Path[min(len(Prefix), len(r.URL.Path)):]
	r2.URL.RawPath = ""
	h.mux.ServeHTTP(w, r2)
}

func (h *Handler) wrap(fn func(http.ResponseWriter, *http.Request, *access.Service) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		svc, err := h.service()
		if err == nil {
			err = fn(w, r, svc)
		}
		if err != nil {
			clientapi.WriteProblem(w, h.logger, err)
		}
	})
}

// userAction is a route that acts on one user and answers 204.
func userAction(act func(*access.Service, context.Context, string, string) error) func(http.ResponseWriter, *http.Request, *access.Service) error {
	return func(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
		if err := act(svc, r.Context(), r.PathValue("app"), r.PathValue("user")); err != nil {
			return err
		}
		return noContent(w)
	}
}

func noContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *Handler) health(w http.ResponseWriter, _ *http.Request, svc *access.Service) error {
	clientapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok", "time": clientapi.RFC3339(svc.Now())})
	return nil
}

// appSettingsJSON is the body of POST and PATCH /apps.
type appSettingsJSON struct {
	Name              *string `json:"name"`
	DeviceAuth        *bool   `json:"device_auth"`
	AnonymousAccess   *bool   `json:"anonymous_access"`
	MaxDevices        *int    `json:"max_devices"`
	MinPasswordLength *int    `json:"min_password_length"`
	SessionTTL        *string `json:"session_ttl"`

	TokenRequiresHardwareID *bool `json:"token_requires_hardware_id"`
	MaxSessions             *int  `json:"max_sessions"`
}

func (b appSettingsJSON) settings() (access.AppSettings, error) {
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

func (h *Handler) createApp(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b appSettingsJSON
	if err := clientapi.DecodeJSON(w, r, &b); err != nil {
		return err
	}
	st, err := b.settings()
	if err != nil {
		return err
	}
	app, err := svc.CreateApp(r.Context(), st)
	if err != nil {
		return err
	}
	clientapi.WriteJSON(w, http.StatusCreated, appView(&app.App, app.APISecret))
	return nil
}

func (h *Handler) listApps(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	apps, err := svc.Apps(r.Context())
	if err != nil {
		return err
	}
	out := make([]appJSON, len(apps))
	for i := range apps {
		out[i] = appView(&apps[i], "")
	}
	clientapi.WriteJSON(w, http.StatusOK, map[string]any{"apps": out})
	return nil
}

func (h *Handler) showApp(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	app, err := svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	clientapi.WriteJSON(w, http.StatusOK, appView(app, ""))
	return nil
}

func (h *Handler) updateApp(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b appSettingsJSON
	if err := clientapi.DecodeJSON(w, r, &b); err != nil {
		return err
	}
	st, err := b.settings()
	if err != nil {
		return err
	}
	app, err := svc.UpdateApp(r.Context(), r.PathValue("app"), st)
	if err != nil {
		return err
	}
	clientapi.WriteJSON(w, http.StatusOK, appView(app, ""))
	return nil
}

func (h *Handler) deleteApp(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.DeleteApp(r.Context(), r.PathValue("app")); err != nil {
		return err
	}
	return noContent(w)
}

func (h *Handler) rotateSecret(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	secret, err := svc.RotateSecret(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	clientapi.WriteJSON(w, http.StatusOK, map[string]string{"api_secret": secret})
	return nil
}

type licenseRequestJSON struct {
	Count                 *int     `json:"count"`
	Minutes               *int64   `json:"minutes"`
	GrantsLifetimeAccess  bool     `json:"grants_lifetime_access"`
	RevokesLifetimeAccess bool     `json:"revokes_lifetime_access"`
	Note                  string   `json:"note"`
	Codes                 []string `json:"codes"`
}

// The bodies of license creation can be larger than the client API's.
const maxLicenseBody = 2 << 20

func (h *Handler) createLicenses(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b licenseRequestJSON
	r.Body = http.MaxBytesReader(w, r.Body, maxLicenseBody)
	if err := clientapi.DecodeJSON(w, r, &b); err != nil {
		return err
	}
	count := 1
	if b.Count != nil {
		count = *b.Count
	}
	ls, err := svc.CreateLicenses(r.Context(), r.PathValue("app"), access.LicenseRequest{Count: count, Note: b.Note, Codes: b.Codes,
		Grant: access.Grant{Minutes: b.Minutes, GrantsLifetimeAccess: b.GrantsLifetimeAccess, RevokesLifetimeAccess: b.RevokesLifetimeAccess}})
	if err != nil {
		return err
	}
	out := make([]licenseJSON, len(ls))
	for i := range ls {
		out[i] = licenseView(&ls[i].License, ls[i].Code, nil)
	}
	clientapi.WriteJSON(w, http.StatusCreated, map[string]any{"licenses": out})
	return nil
}

func (h *Handler) listLicenses(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	q := r.URL.Query()
	appID := r.PathValue("app")
	if code := q.Get("code"); code != "" {
		st, err := svc.LicenseByCode(r.Context(), appID, code)
		if err != nil {
			return err
		}
		clientapi.WriteJSON(w, http.StatusOK, licenseView(&st.License, "", st.Use))
		return nil
	}
	var used *bool
	switch q.Get("used") {
	case "":
	case "true", "false":
		u := q.Get("used") == "true"
		used = &u
	default:
		return access.Invalid(access.FieldError{Field: "used", Message: "must be true or false"})
	}
	limit, err := pageLimit(q.Get("limit"))
	if err != nil {
		return err
	}
	ls, next, err := svc.Licenses(r.Context(), appID, used, q.Get("after"), limit)
	if err != nil {
		return err
	}
	out := make([]licenseJSON, len(ls))
	for i := range ls {
		out[i] = licenseView(&ls[i].License, "", ls[i].Use)
	}
	clientapi.WriteJSON(w, http.StatusOK, map[string]any{"licenses": out, "next": cursor(next)})
	return nil
}

func pageLimit(s string) (int, error) {
	if s == "" {
		return 100, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > access.MaxPageSize {
		return 0, access.Invalid(access.FieldError{Field: "limit", Message: "must be 1 to 1000"})
	}
	return n, nil
}

func cursor(next string) *string {
	if next == "" {
		return nil
	}
	return &next
}

func (h *Handler) showLicense(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	st, err := svc.LicenseOf(r.Context(), r.PathValue("app"), r.PathValue("license"))
	if err != nil {
		return err
	}
	clientapi.WriteJSON(w, http.StatusOK, licenseView(&st.License, "", st.Use))
	return nil
}

func (h *Handler) deleteLicense(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.DeleteLicense(r.Context(), r.PathValue("app"), r.PathValue("license")); err != nil {
		return err
	}
	return noContent(w)
}

func (h *Handler) listUsers(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	q := r.URL.Query()
	limit, err := pageLimit(q.Get("limit"))
	if err != nil {
		return err
	}
	users, err := svc.Users(r.Context(), r.PathValue("app"), q.Get("username"), q.Get("after"), limit)
	if err != nil {
		return err
	}
	out := make([]userSummaryJSON, len(users))
	next := ""
	for i, u := range users {
		out[i] = userSummaryJSON{ID: u.ID, Username: u.Username, CreatedAt: clientapi.RFC3339(u.CreatedAt)}
		next = u.ID
	}
	if len(users) < limit {
		next = ""
	}
	clientapi.WriteJSON(w, http.StatusOK, map[string]any{"users": out, "next": cursor(next)})
	return nil
}

func (h *Handler) showUser(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	d, err := svc.UserDetail(r.Context(), r.PathValue("app"), r.PathValue("user"))
	if err != nil {
		return err
	}
	clientapi.WriteJSON(w, http.StatusOK, userDetailView(d, svc.Now()))
	return nil
}

func (h *Handler) banUser(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b struct {
		Reason string `json:"reason"`
	}
	if r.ContentLength != 0 {
		if err := clientapi.DecodeJSON(w, r, &b); err != nil {
			return err
		}
	}
	if err := svc.BanUser(r.Context(), r.PathValue("app"), r.PathValue("user"), b.Reason); err != nil {
		return err
	}
	return noContent(w)
}

func (h *Handler) grant(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b struct {
		Minutes               *int64 `json:"minutes"`
		GrantsLifetimeAccess  bool   `json:"grants_lifetime_access"`
		RevokesLifetimeAccess bool   `json:"revokes_lifetime_access"`
		Note                  string `json:"note"`
	}
	if err := clientapi.DecodeJSON(w, r, &b); err != nil {
		return err
	}
	a, err := svc.GrantUser(r.Context(), r.PathValue("app"), r.PathValue("user"), access.GrantRequest{Note: b.Note,
		Grant: access.Grant{Minutes: b.Minutes, GrantsLifetimeAccess: b.GrantsLifetimeAccess, RevokesLifetimeAccess: b.RevokesLifetimeAccess}})
	if err != nil {
		return err
	}
	clientapi.WriteJSON(w, http.StatusCreated, activationView(a))
	return nil
}

func (h *Handler) listVariables(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	vs, err := svc.Variables(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	out := make([]clientapi.VariableJSON, len(vs))
	for i, v := range vs {
		out[i] = clientapi.VariableJSON{Name: v.Name, Value: v.Value}
	}
	clientapi.WriteJSON(w, http.StatusOK, map[string]any{"variables": out})
	return nil
}

func (h *Handler) setVariable(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b struct {
		Value *string `json:"value"`
	}
	if err := clientapi.DecodeJSON(w, r, &b); err != nil {
		return err
	}
	if b.Value == nil {
		return access.Invalid(access.FieldError{Field: "value", Message: "is required"})
	}
	v, err := svc.SetVariable(r.Context(), r.PathValue("app"), r.PathValue("name"), *b.Value)
	if err != nil {
		return err
	}
	clientapi.WriteJSON(w, http.StatusOK, clientapi.VariableJSON{Name: v.Name, Value: v.Value})
	return nil
}

func (h *Handler) deleteVariable(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.DeleteVariable(r.Context(), r.PathValue("app"), r.PathValue("name")); err != nil {
		return err
	}
	return noContent(w)
}

// MaxFileBytes bounds an uploaded file.
const MaxFileBytes = 1 << 30

func (h *Handler) uploadFile(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	q := r.URL.Query()
	up := access.FileUpload{Name: q.Get("name"), MimeType: q.Get("mime_type")}
	if up.MimeType == "" {
		up.MimeType = r.Header.Get("Content-Type")
	}
	switch q.Get("encrypted") {
	case "", "false":
	case "true":
		up.Encrypted = true
	default:
		return access.Invalid(access.FieldError{Field: "encrypted", Message: "must be true or false"})
	}
	f, err := svc.UploadFile(r.Context(), r.PathValue("app"), up, http.MaxBytesReader(w, r.Body, MaxFileBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return access.Refusal(access.CodePayloadTooLarge, "The file is larger than 1 GiB.")
	}
	if err != nil {
		return err
	}
	clientapi.WriteJSON(w, http.StatusCreated, fileView(f))
	return nil
}

func (h *Handler) listFiles(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	fs, err := svc.Files(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	out := make([]fileJSON, len(fs))
	for i := range fs {
		out[i] = fileView(&fs[i])
	}
	clientapi.WriteJSON(w, http.StatusOK, map[string]any{"files": out})
	return nil
}

func (h *Handler) deleteFile(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.DeleteFile(r.Context(), r.PathValue("app"), r.PathValue("file")); err != nil {
		return err
	}
	return noContent(w)
}

func (h *Handler) resetPassword(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b struct {
		Password string `json:"password"`
	}
	if err := clientapi.DecodeJSON(w, r, &b); err != nil {
		return err
	}
	if err := svc.ResetPassword(r.Context(), r.PathValue("app"), r.PathValue("user"), b.Password); err != nil {
		return err
	}
	return noContent(w)
}
