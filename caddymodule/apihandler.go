package caddymodule

import (
	"net/http"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/httpx"
)

func init() {
	caddy.RegisterModule(APIHandler{})
}

// APIHandler serves the App Access client API (sign-up, login, license
// activation, application context, file downloads). It is a terminal
// handler: it answers every request it gets.
type APIHandler struct {
	app    *App
	logger *zap.Logger
	// recorders are the idle *outcomeRecorder of requests served.
	recorders *sync.Pool
}

// CaddyModule returns the Caddy module information.
func (APIHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.app_access_api", New: func() caddy.Module { return new(APIHandler) }}
}

// Provision finds the app_access app and keeps credentials out of the
// server's request logs.
func (h *APIHandler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	h.recorders = new(sync.Pool)
	if err := guardServerLogs(ctx); err != nil {
		return err
	}
	app, err := appFrom(ctx)
	h.app = app
	return err
}

// ServeHTTP implements caddyhttp.MiddlewareHandler.
func (h *APIHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	rec, _ := h.recorders.Get().(*outcomeRecorder)
	if rec == nil {
		rec = new(outcomeRecorder)
	}
	rec.ResponseWriter = w
	defer func() {
		rec.reset()
		h.recorders.Put(rec)
	}()
	live, err := h.app.serving()
	if err != nil {
		rec.Header().Set("Retry-After", "1")
		httpx.WriteProblem(rec, h.logger, err)
		countRequest("client", "", rec.outcome())
		return nil
	}
	r = withClientTarget(r)
	live.api.ServeHTTP(rec, r)
	// The client API leaves the route pattern that served r in r.Pattern.
	countRequest("client", r.Pattern, rec.outcome())
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*APIHandler)(nil)
	_ caddyhttp.MiddlewareHandler = (*APIHandler)(nil)
)

// withClientTarget tells the client API the request target the client
// sent, when a rewrite before this handler (handle_path) changed it:
// answers are signed over what the client sent.
func withClientTarget(r *http.Request) *http.Request {
	if r.Header.Get(clientapi.HeaderAPIKey) == "" {
		return r
	}
	orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request)
	if !ok || orig.RequestURI == "" || orig.RequestURI == r.RequestURI {
		return r
	}
	return r.WithContext(clientapi.WithRequestTarget(r.Context(), orig.RequestURI))
}
