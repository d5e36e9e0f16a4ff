package caddymodule

import (
	"errors"
	"net/http"

	"github.com/caddyserver/caddy/v2"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminapi"
)

func init() {
	caddy.RegisterModule(AdminAPI{})
}

// AdminAPI serves App Access's management routes under /app_access/ on
// Caddy's admin endpoint, with the endpoint's own protections (a local
// address or Unix socket by default, mTLS for remote admin). It keeps no
// state: each request finds the running app_access app, and gets 503 while
// there is none.
type AdminAPI struct{}

// CaddyModule returns the Caddy module information.
func (AdminAPI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "admin.api.app_access", New: func() caddy.Module { return new(AdminAPI) }}
}

// Routes implements caddy.AdminRouter.
func (AdminAPI) Routes() []caddy.AdminRoute {
	h := adminapi.NewHandler(adminapi.DefaultPrefix, runningService, caddy.Log().Named("admin.api.app_access"))
	serve := caddy.AdminHandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		rec := &outcomeRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		countRequest("management", h.Pattern(r), rec.outcome())
		return nil
	})
	return []caddy.AdminRoute{
		{Pattern: adminapi.DefaultPrefix + "/", Handler: serve},
	}
}

// runningService finds the service of the active config's app_access app.
func runningService() (*access.Service, error) {
	v, err := caddy.ActiveContext().AppIfConfigured("app_access")
	if err != nil {
		if errors.Is(err, caddy.ErrNotConfigured) {
			return nil, access.Refusal(access.CodeUnavailable, "The app_access app is not running.")
		}
		return nil, err
	}
	live, err := v.(*App).serving()
	if err != nil {
		return nil, err
	}
	return live.svc, nil
}

var _ caddy.AdminRouter = AdminAPI{}
