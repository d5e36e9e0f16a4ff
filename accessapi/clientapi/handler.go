package clientapi

import (
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
)

// Handler serves the client API.
type Handler struct {
	auth     Authenticator
	clientIP func(*http.Request) string
	logger   *zap.Logger
}

// NewHandler returns the client API over svc. clientIP resolves the
// address of the client (honouring trusted proxies); nil uses RemoteAddr.
func NewHandler(svc *access.Service, clientIP func(*http.Request) string, logger *zap.Logger) *Handler {
	if clientIP == nil {
		clientIP = remoteIP
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	return &Handler{auth: Authenticator{Service: svc}, clientIP: clientIP, logger: logger}
}

func (h *Handler) svc() *access.Service { return h.auth.Service }

// ServeHTTP routes a request to its endpoint.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	var (
		route  func(http.ResponseWriter, *http.Request, *access.App) error
		method = http.MethodPost
	)
	switch {
	case path == "/sign_up":
		route = h.signUp
	case path == "/sign_up_with_license_code":
		route = h.signUpWithLicenseCode
	case path == "/auth/login":
		route = h.login
	case path == "/auth/logout":
		route = h.logout
	case path == "/activate_license":
		route = h.activateLicense
	case path == "/auth/change_password":
		route = h.changePassword
	case path == "/app_context":
		route, method = h.appContext, http.MethodGet
	case strings.HasPrefix(path, "/files/") && !strings.Contains(path[len("/files/"):], "/"):
		route, method = h.downloadFile, http.MethodGet
	default:
		WriteProblem(w, h.logger, access.Refusal(access.CodeNotFound, "There is no such endpoint."))
		return
	}
	if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
		w.Header().Set("Allow", method)
		w.Header().Set("Content-Type", "application/problem+json")
		WriteJSON(w, http.StatusMethodNotAllowed, Problem{Type: ProblemTypePrefix + "method_not_allowed",
			Title: "Method not allowed", Status: http.StatusMethodNotAllowed, Detail: "Use " + method + " for this endpoint.", Code: "method_not_allowed"})
		return
	}
	r = r.WithContext(access.WithClientAddress(r.Context(), h.clientIP(r)))
	app, err := h.auth.App(r)
	if err == nil {
		err = route(w, r, app)
	}
	if err != nil {
		WriteProblem(w, h.logger, err)
	}
}

type signUpBody struct {
	Username   string `json:"username"`
	Password   string `json:"password"`
	HardwareID string `json:"hardware_id"`
}

func (h *Handler) signUp(w http.ResponseWriter, r *http.Request, app *access.App) error {
	var b signUpBody
	if err := DecodeJSON(w, r, &b); err != nil {
		return err
	}
	if err := required([2]string{"username", b.Username}, [2]string{"password", b.Password}); err != nil {
		return err
	}
	u, err := h.svc().SignUp(r.Context(), app, access.SignUpRequest{Username: b.Username, Password: b.Password, HardwareID: b.HardwareID})
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusCreated, userView(u, h.svc().Now()))
	return nil
}

type licenseSignUpBody struct {
	Code       string `json:"code"`
	HardwareID string `json:"hardware_id"`
}

func (h *Handler) signUpWithLicenseCode(w http.ResponseWriter, r *http.Request, app *access.App) error {
	var b licenseSignUpBody
	if err := DecodeJSON(w, r, &b); err != nil {
		return err
	}
	u, err := h.svc().SignUpWithLicense(r.Context(), app, b.Code, b.HardwareID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusCreated, userView(u, h.svc().Now()))
	return nil
}

type loginBody struct {
	Credentials *struct {
		Username string `json:"username"`
		Password string `json:"password"`
		Code     string `json:"code"`
	} `json:"credentials"`
	HardwareID string `json:"hardware_id"`
}

type sessionJSON struct {
	SessionToken string `json:"session_token"`
	ExpiresAt    string `json:"expires_at"`
}

func (h *Handler) login(w http.ResponseWriter, r *http.Request, app *access.App) error {
	var b loginBody
	if err := DecodeJSON(w, r, &b); err != nil {
		return err
	}
	c := b.Credentials
	switch {
	case c == nil:
		return access.Invalid(access.FieldError{Field: "credentials", Message: "is required"})
	case c.Code != "" && (c.Username != "" || c.Password != ""):
		return access.Invalid(access.FieldError{Field: "credentials", Message: "must be either {username, password} or {code}"})
	case c.Code == "":
		if err := required([2]string{"credentials.username", c.Username}, [2]string{"credentials.password", c.Password}); err != nil {
			return err
		}
	}
	grant, err := h.svc().Login(r.Context(), app, access.LoginRequest{
		Credentials: access.Credentials{Username: c.Username, Password: c.Password, Code: c.Code, HardwareID: b.HardwareID},
		IP:          h.clientIP(r),
	})
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, sessionJSON{SessionToken: grant.Token, ExpiresAt: RFC3339(grant.ExpiresAt)})
	return nil
}

func (h *Handler) logout(w http.ResponseWriter, r *http.Request, app *access.App) error {
	if err := h.svc().Logout(r.Context(), app, BearerToken(r)); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type activateBody struct {
	Code     string `json:"code"`
	Username string `json:"username"`
	Password string `json:"password"`
}

func (h *Handler) activateLicense(w http.ResponseWriter, r *http.Request, app *access.App) error {
	var b activateBody
	if err := DecodeJSON(w, r, &b); err != nil {
		return err
	}
	a, err := h.svc().ActivateLicense(r.Context(), app, access.ActivateRequest{Code: b.Code, Username: b.Username, Password: b.Password})
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusCreated, ActivationView(a))
	return nil
}

func (h *Handler) appContext(w http.ResponseWriter, r *http.Request, app *access.App) error {
	u, err := h.svc().Authenticate(r.Context(), app, HeaderCredentials(r), true)
	if err != nil {
		return err
	}
	content, err := h.svc().Content(r.Context(), app)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, appContextJSON{Application: applicationView(app, content), User: userView(u, h.svc().Now())})
	return nil
}

func remoteIP(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

type changePasswordBody struct {
	Username    string `json:"username"`
	OldPassword string `json:"old_password"`
	NewPassword string `json:"new_password"`
}

func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request, app *access.App) error {
	var b changePasswordBody
	if err := DecodeJSON(w, r, &b); err != nil {
		return err
	}
	err := h.svc().ChangePassword(r.Context(), app, access.PasswordChange{Username: b.Username, OldPassword: b.OldPassword,
		NewPassword: b.NewPassword, Token: BearerToken(r)})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}
