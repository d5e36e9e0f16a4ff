// Package clientapi serves App Access's client API (the interface
// specification's endpoints) over net/http, and the request authentication
// that the upstream guard shares with it.
package clientapi

import (
	"context"
	"net/http"
	"sync"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/openapi"
)

// MaxBodyBytes bounds a request body of the client API.
const MaxBodyBytes = 64 << 10

// MaxPasswordBodyBytes bounds the body of a request that sets a password
// (sign-up, password change): large enough that an over-long password is
// answered 422 with the password rule rather than 413.
const MaxPasswordBodyBytes = 2 << 20

// Handler serves the client API.
type Handler struct {
	auth     Authenticator
	clientIP func(*http.Request) string
	logger   *zap.Logger
	router   *httpx.Router
	// encodedApps caches the application part of GET /app_context.
	encodedApps encodedApps
	// appContextEncoders are the idle *appContextEncoder of GET /app_context.
	appContextEncoders sync.Pool
}

// endpoint serves one route for an authenticated application. It reads
// the request's context from ctx, not r: ctx also carries the client's
// address (access.WithClientAddress), which throttling and audit
// principals need.
type endpoint func(ctx context.Context, w http.ResponseWriter, r *http.Request, app *access.App) error

// NewHandler returns the client API over svc. clientIP resolves the
// address of the client (honouring trusted proxies); nil uses RemoteAddr.
func NewHandler(svc *access.Service, clientIP func(*http.Request) string, logger *zap.Logger) *Handler {
	if clientIP == nil {
		clientIP = httpx.RemoteIP
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	h := &Handler{auth: Authenticator{Service: svc}, clientIP: clientIP, logger: logger,
		router: httpx.NewRouter(logger, "There is no such endpoint.")}
	for pattern, fn := range map[string]endpoint{
		"POST /sign_up":                   h.signUp,
		"POST /sign_up_with_license_code": h.signUpWithLicenseCode,
		"POST /auth/login":                h.login,
		"POST /auth/logout":               h.logout,
		"POST /activate_license":          h.activateLicense,
		"POST /auth/change_password":      h.changePassword,
		"GET /app_context":                h.appContext,
		"POST /auth/offline_token":        h.offlineToken,
		"GET /files/{file}":               h.downloadFile,
	} {
		h.router.Handle(pattern, h.withApp(fn))
	}
	// The API's own description needs no application credentials.
	h.router.Handle("GET /openapi.json", openapi.Handler(openapi.Client))
	return h
}

// Pattern is the route pattern that serves r ("POST /auth/login"), or ""
// for an unknown path or method.
func (h *Handler) Pattern(r *http.Request) string { return h.router.Pattern(r) }

func (h *Handler) svc() *access.Service { return h.auth.Service }

// ServeHTTP routes a request to its endpoint: an unknown path or a wrong
// method is answered before the application's credentials are checked.
// Every answer to a request whose x-api-key names an application is signed
// with the application's key (signing.go); others are not, as there is no
// key a client could trust them by. Once it returns, r.Pattern is the
// route pattern that served r, or "" for none: what Pattern(r) is.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if headerValue(r, HeaderAPIKey) == "" {
		h.router.ServeHTTP(w, r)
		return
	}
	h.serveSigned(w, r)
}

// withApp authenticates the application, then serves the endpoint; a
// refusal of either is answered as a problem.
func (h *Handler) withApp(fn endpoint) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Throttling keys on the client's address. The endpoint gets it
		// in ctx rather than in a copy of r made to carry it.
		ctx := access.WithClientAddress(r.Context(), h.clientIP(r))
		app, err := h.auth.app(ctx, r)
		if err == nil {
			if sw, ok := w.(*signingWriter); ok {
				sw.app = app // signed with its key, without finding it again
			}
			err = fn(ctx, w, r, app)
		}
		if err != nil {
			httpx.WriteProblem(w, h.logger, err)
		}
	})
}
