// Package adminapi serves App Access's management API: applications,
// licenses, users, variables and files. Caddy mounts it under /app_access/
// on its admin endpoint, whose own access controls protect it.
package adminapi

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/openapi"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// DefaultPrefix is where Caddy's admin endpoint mounts the routes.
const DefaultPrefix = "/app_access"

// Body limits: a license import may carry 10,000 codes of up to 128
// characters; every other body is small.
const (
	maxBodyBytes        = 64 << 10
	maxLicenseBodyBytes = 2 << 20
)

// ServiceFunc finds the running service for a request; it fails while none
// runs.
type ServiceFunc func() (*access.Service, error)

// Handler serves the management API.
type Handler struct {
	prefix  string
	service ServiceFunc
	logger  *zap.Logger
	router  *httpx.Router
}

// route serves one management route with the running service.
type route func(http.ResponseWriter, *http.Request, *access.Service) error

// NewHandler returns the management API under the URL path prefix (for
// example DefaultPrefix; "" serves it at the root) over the services
// service finds.
func NewHandler(prefix string, service ServiceFunc, logger *zap.Logger) *Handler {
	if logger == nil {
		logger = zap.NewNop()
	}
	h := &Handler{prefix: prefix, service: service, logger: logger,
		router: httpx.NewRouter(logger, "There is no such management route.")}
	for pattern, fn := range h.routes() {
		method, path, _ := strings.Cut(pattern, " ")
		h.router.Handle(method+" "+prefix+path, h.wrap(fn))
	}
	// The API's own description is served even while no service runs.
	h.router.Handle("GET "+prefix+"/openapi.json", openapi.Handler(openapi.Management))
	return h
}

// Pattern is the route pattern that serves r ("GET /app_access/apps/{app}"),
// or "" for an unknown path or method.
func (h *Handler) Pattern(r *http.Request) string { return h.router.Pattern(r) }

// Prefix is the URL path prefix the handler serves.
func (h *Handler) Prefix() string { return h.prefix }

// ServeHTTP serves a request whose path starts with the prefix. The acting
// principal is the one already in the request's context, else the admin
// endpoint's caller (AdminEndpointCaller).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, ok := PrincipalFrom(r.Context()); !ok {
		r = r.WithContext(WithPrincipal(r.Context(), Principal{Kind: PrincipalAdminEndpoint, Name: AdminEndpointCaller(r)}))
	}
	h.router.ServeHTTP(w, r)
}

// AdminEndpointCaller names the caller of the admin endpoint: by its
// client certificate on Caddy's remote admin (mutual TLS: the subject's
// common name and the first 8 bytes of the certificate's SHA-256), else by
// its remote address (the local endpoint: a socket or localhost).
func AdminEndpointCaller(r *http.Request) string {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return r.RemoteAddr
	}
	cert := r.TLS.PeerCertificates[0]
	sum := sha256.Sum256(cert.Raw)
	return "cert " + cert.Subject.CommonName + " sha256:" + hex.EncodeToString(sum[:8]) + " from " + r.RemoteAddr
}

func (h *Handler) wrap(fn route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		svc, err := h.service()
		if err == nil {
			err = fn(w, r, svc)
		}
		if err != nil {
			httpx.WriteProblem(w, h.logger, err)
		}
	})
}

func noContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// health serves GET /health.
func (h *Handler) health(w http.ResponseWriter, _ *http.Request, svc *access.Service) error {
	httpx.WriteJSON(w, http.StatusOK, wire.Health{Status: "ok", Time: httpx.RFC3339(svc.Now())})
	return nil
}
