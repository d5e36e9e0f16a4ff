package caddymodule

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/dashboard"
)

func init() {
	caddy.RegisterModule(AdminHandler{})
	httpcaddyfile.RegisterHandlerDirective("app_access_admin", parseAdminDirective)
}

// AdminHandler serves, on the public site, the App Access web dashboard
// and the management API (the routes of the admin endpoint) for seller
// keys and dashboard sessions. It is a terminal handler for the paths
// under Prefix.
type AdminHandler struct {
	// Prefix is the path the dashboard is served under. Default: /admin.
	Prefix string `json:"prefix,omitempty"`
	// SecureCookies marks the session cookie Secure (and names it with the
	// __Host- prefix) on every request. A request that came to Caddy over
	// TLS gets such a cookie without it; set it when a proxy in front of
	// Caddy ends TLS.
	SecureCookies bool `json:"secure_cookies,omitempty"`
	// TrustedOrigins may submit forms from another origin (for example
	// https://admin.example.com); usually none.
	TrustedOrigins []string `json:"trusted_origins,omitempty"`

	server *dashboard.Server
	logger *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (AdminHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.app_access_admin", New: func() caddy.Module { return new(AdminHandler) }}
}

// Provision finds the app_access app, keeps credentials out of the
// server's request logs and parses the dashboard's templates.
func (h *AdminHandler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if err := guardServerLogs(ctx); err != nil {
		return err
	}
	app, err := appFrom(ctx)
	if err != nil {
		return err
	}
	if h.Prefix == "" {
		h.Prefix = "/admin"
	}
	if !strings.HasPrefix(h.Prefix, "/") {
		return fmt.Errorf("prefix %q must start with /", h.Prefix)
	}
	h.server, err = dashboard.New(dashboard.Config{
		Prefix:         h.Prefix,
		SecureCookies:  h.SecureCookies,
		TrustedOrigins: h.TrustedOrigins,
		ClientIP:       clientIP,
		Logger:         h.logger,
		Service: func() (*access.Service, error) {
			live, err := app.serving()
			if err != nil {
				return nil, err
			}
			return live.svc, nil
		},
	})
	return err
}

// ServeHTTP implements caddyhttp.MiddlewareHandler.
func (h *AdminHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	h.server.ServeHTTP(w, r)
	return nil
}

func parseAdminDirective(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(AdminHandler)
	return m, m.UnmarshalCaddyfile(h.Dispenser)
}

// UnmarshalCaddyfile implements caddyfile.Unmarshaler:
//
//	app_access_admin [<matcher>] {
//		prefix          <path>
//		secure_cookies
//		trusted_origins <origin>...
//	}
func (h *AdminHandler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "prefix":
			if !d.AllArgs(&h.Prefix) {
				return d.ArgErr()
			}
		case "secure_cookies":
			if d.NextArg() {
				return d.ArgErr()
			}
			h.SecureCookies = true
		case "trusted_origins":
			h.TrustedOrigins = append(h.TrustedOrigins, d.RemainingArgs()...)
			if len(h.TrustedOrigins) == 0 {
				return d.ArgErr()
			}
		default:
			return d.Errf("unknown app_access_admin option %q", d.Val())
		}
	}
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*AdminHandler)(nil)
	_ caddyhttp.MiddlewareHandler = (*AdminHandler)(nil)
	_ caddyfile.Unmarshaler       = (*AdminHandler)(nil)
)
