package caddymodule

import (
	"fmt"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("app_access", parseGlobalOption)
	httpcaddyfile.RegisterHandlerDirective("app_access_api", parseAPIDirective)
	httpcaddyfile.RegisterHandlerDirective("app_access_auth", parseAuthDirective)
	// The guard authenticates, like basic_auth and forward_auth, before
	// anything that rewrites or answers the request.
	httpcaddyfile.RegisterDirectiveOrder("app_access_auth", httpcaddyfile.After, "forward_auth")
	// The dashboard answers its own paths before the client API, which
	// answers everything else: each is put just before reverse_proxy, so
	// app_access_admin, then app_access_api.
	httpcaddyfile.RegisterDirectiveOrder("app_access_admin", httpcaddyfile.Before, "reverse_proxy")
	httpcaddyfile.RegisterDirectiveOrder("app_access_api", httpcaddyfile.Before, "reverse_proxy")
}

// parseGlobalOption sets up the app_access app:
//
//	app_access {
//		mongodb_uri              <uri>
//		database                 <name>
//		data_dir                 <path>
//		file_key                 <base64 key>
//		staleness                <duration>
//		credential_cache_ttl     <duration> | off
//		cache_entries            <n>
//		feed_interval            <duration>
//		feed_retention           <duration>
//		session_cleanup_interval <duration>
//		audit_retention          <duration>
//		dashboard_idle_timeout   <duration>
//		journal_grace            <duration>
//		journal_sweep_interval   <duration>
//		hash_memory_kib          <KiB>
//		hash_iterations          <n>
//		hash_concurrency         <n>
//		hash_queue               <n>
//		throttle {
//			...                  (see unmarshalThrottle)
//		}
//		webhooks {
//			allow_private_networks
//			...                  (see unmarshalWebhooks)
//		}
//	}
func parseGlobalOption(d *caddyfile.Dispenser, _ any) (any, error) {
	app := new(App)
	if err := app.UnmarshalCaddyfile(d); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "app_access", Value: caddyconfig.JSON(app, nil)}, nil
}

// UnmarshalCaddyfile implements caddyfile.Unmarshaler.
func (a *App) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the option name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		key := d.Val()
		if key == "throttle" {
			t, err := unmarshalThrottle(d)
			if err != nil {
				return err
			}
			a.Throttle = t
			continue
		}
		if key == "webhooks" {
			w, err := unmarshalWebhooks(d)
			if err != nil {
				return err
			}
			a.Webhooks = w
			continue
		}
		var arg string
		if !d.AllArgs(&arg) {
			return d.ArgErr()
		}
		switch key {
		case "mongodb_uri":
			a.MongoDBURI = arg
		case "database":
			a.Database = arg
		case "data_dir":
			a.DataDir = arg
		case "file_key":
			a.FileKey = arg
		case "credential_cache_ttl":
			if arg == "off" {
				a.CredentialCacheTTL = -1
				continue
			}
			dur, err := caddy.ParseDuration(arg)
			if err != nil {
				return d.Errf("%s: %v", key, err)
			}
			a.CredentialCacheTTL = caddy.Duration(dur)
		case "staleness", "session_cleanup_interval", "feed_interval", "feed_retention", "audit_retention", "dashboard_idle_timeout", "journal_grace", "journal_sweep_interval":
			dur, err := caddy.ParseDuration(arg)
			if err != nil {
				return d.Errf("%s: %v", key, err)
			}
			*map[string]*caddy.Duration{"staleness": &a.Staleness, "session_cleanup_interval": &a.SessionCleanupInterval,
				"feed_interval": &a.FeedInterval, "feed_retention": &a.FeedRetention, "audit_retention": &a.AuditRetention,
				"dashboard_idle_timeout": &a.DashboardIdleTimeout, "journal_grace": &a.JournalGrace, "journal_sweep_interval": &a.JournalSweepInterval}[key] = caddy.Duration(dur)
		case "cache_entries":
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 {
				return d.Errf("%s: must be a positive number", key)
			}
			a.CacheEntries = n
		case "hash_memory_kib", "hash_iterations":
			n, err := strconv.ParseUint(arg, 10, 32)
			if err != nil || n < 1 {
				return d.Errf("%s: must be a positive number", key)
			}
			*map[string]*uint32{"hash_memory_kib": &a.HashMemoryKiB, "hash_iterations": &a.HashIterations}[key] = uint32(n)
		case "hash_concurrency", "hash_queue":
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 {
				return d.Errf("%s: must be a positive number", key)
			}
			*map[string]*int{"hash_concurrency": &a.HashConcurrency, "hash_queue": &a.HashQueue}[key] = n
		default:
			return d.Errf("unknown app_access option %q", key)
		}
	}
	return nil
}

func parseAPIDirective(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(APIHandler)
	return m, m.UnmarshalCaddyfile(h.Dispenser)
}

func parseAuthDirective(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(AuthHandler)
	return m, m.UnmarshalCaddyfile(h.Dispenser)
}

// UnmarshalCaddyfile implements caddyfile.Unmarshaler. The directive takes
// no arguments:
//
//	app_access_api
func (h *APIHandler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() || d.NextBlock(0) {
		return d.Err("app_access_api takes no arguments or block")
	}
	return nil
}

// UnmarshalCaddyfile implements caddyfile.Unmarshaler:
//
//	app_access_auth {
//		require_active_membership on|off
//		allow_anonymous           off|app
//		apps                      <app id>...
//		header_user_id            <name>|-
//		header_username           <name>|-
//		header_app_id             <name>|-
//		header_membership_expires_at <name>|-
//	}
func (h *AuthHandler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		key := d.Val()
		if key == "apps" {
			h.Apps = append(h.Apps, d.RemainingArgs()...)
			if len(h.Apps) == 0 {
				return d.ArgErr()
			}
			continue
		}
		var arg string
		if !d.AllArgs(&arg) {
			return d.ArgErr()
		}
		switch key {
		case "require_active_membership":
			on, err := parseOnOff(arg)
			if err != nil {
				return d.Errf("require_active_membership: %v", err)
			}
			h.RequireActiveMembership = &on
		case "allow_anonymous":
			h.AllowAnonymous = arg
		case "header_user_id":
			h.Headers.UserID = arg
		case "header_username":
			h.Headers.Username = arg
		case "header_app_id":
			h.Headers.AppID = arg
		case "header_membership_expires_at":
			h.Headers.MembershipExpiresAt = arg
		default:
			return d.Errf("unknown app_access_auth option %q", key)
		}
	}
	return nil
}

func parseOnOff(s string) (bool, error) {
	switch s {
	case "on", "true":
		return true, nil
	case "off", "false":
		return false, nil
	}
	return false, fmt.Errorf("must be on or off, not %q", s)
}

// Interface guards.
var (
	_ caddyfile.Unmarshaler = (*App)(nil)
	_ caddyfile.Unmarshaler = (*APIHandler)(nil)
	_ caddyfile.Unmarshaler = (*AuthHandler)(nil)
)
