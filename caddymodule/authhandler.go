package caddymodule

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/dashboard"
	"github.com/appaccess/appaccess/accessapi/httpx"
)

func init() {
	caddy.RegisterModule(AuthHandler{})
}

// AuthHandler guards the routes after it: a request passes only with valid
// application credentials and a signed-in user (Bearer token, license-code
// header or username and password headers, plus a hardware id when the
// application requires one) with an active membership, checked exactly as
// GET /app_context checks them. The user's identity goes on in placeholders
// and request headers; the credentials it consumed do not.
type AuthHandler struct {
	// RequireActiveMembership refuses users whose membership is inactive
	// (403 membership_inactive). Default: true.
	RequireActiveMembership *bool `json:"require_active_membership,omitempty"`

	// AllowAnonymous is "off" (default: a user is always required) or
	// "app" (follow the application's anonymous_access setting; an
	// anonymous request passes without identity headers).
	AllowAnonymous string `json:"allow_anonymous,omitempty"`

	// Apps lists the application IDs whose users may pass. Default: any.
	Apps []string `json:"apps,omitempty"`

	// Headers names the identity headers sent upstream. An empty name
	// keeps the default; "-" disables that header. Client-supplied headers
	// of these names are always removed first.
	Headers IdentityHeaders `json:"headers,omitempty"`

	app    *App
	logger *zap.Logger
	strip  []string
}

// IdentityHeaders are the names of the request headers that carry the
// authenticated user to the upstream.
type IdentityHeaders struct {
	// UserID default: X-App-Access-User-Id.
	UserID string `json:"user_id,omitempty"`
	// Username default: X-App-Access-Username.
	Username string `json:"username,omitempty"`
	// AppID default: X-App-Access-App-Id.
	AppID string `json:"app_id,omitempty"`
	// MembershipExpiresAt default: X-App-Access-Membership-Expires-At
	// ("lifetime" for lifetime access, empty when there is no expiry).
	MembershipExpiresAt string `json:"membership_expires_at,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (AuthHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.app_access_auth", New: func() caddy.Module { return new(AuthHandler) }}
}

// Provision applies defaults, finds the app_access app and keeps
// credentials out of the server's request logs.
func (h *AuthHandler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if err := guardServerLogs(ctx); err != nil {
		return err
	}
	if h.RequireActiveMembership == nil {
		on := true
		h.RequireActiveMembership = &on
	}
	if h.AllowAnonymous == "" {
		h.AllowAnonymous = "off"
	}
	for i, name := range []*string{&h.Headers.UserID, &h.Headers.Username, &h.Headers.AppID, &h.Headers.MembershipExpiresAt} {
		if *name == "" {
			*name = defaultIdentityHeaders[i]
		}
	}
	h.strip = h.identityHeaders()
	app, err := appFrom(ctx)
	h.app = app
	return err
}

// Validate checks the options.
func (h *AuthHandler) Validate() error {
	if h.AllowAnonymous != "off" && h.AllowAnonymous != "app" {
		return fmt.Errorf("allow_anonymous: must be off or app, not %q", h.AllowAnonymous)
	}
	for _, hd := range []struct{ option, name string }{
		{"header_user_id", h.Headers.UserID}, {"header_username", h.Headers.Username},
		{"header_app_id", h.Headers.AppID}, {"header_membership_expires_at", h.Headers.MembershipExpiresAt},
	} {
		// A name that is not an HTTP token would make the upstream
		// request fail (502) for every user who passes.
		if hd.name != "" && hd.name != "-" && !isHeaderToken(hd.name) {
			return fmt.Errorf("%s: %q is not a valid header name (letters, digits and !#$%%&'*+-.^_`|~), or - to not send it", hd.option, hd.name)
		}
	}
	return nil
}

// isHeaderToken reports whether s is a header field name: an RFC 9110
// token.
func isHeaderToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// defaultIdentityHeaders are the default names of the identity headers, in
// the order of IdentityHeaders' fields.
var defaultIdentityHeaders = [...]string{
	"X-App-Access-User-Id", "X-App-Access-Username", "X-App-Access-App-Id", "X-App-Access-Membership-Expires-At",
}

// identityHeaders lists every header name a client must not set: the
// configured names and, in case an upstream still trusts them, the defaults.
func (h *AuthHandler) identityHeaders() []string {
	names := append([]string(nil), defaultIdentityHeaders[:]...)
	for _, n := range []string{h.Headers.UserID, h.Headers.Username, h.Headers.AppID, h.Headers.MembershipExpiresAt} {
		if n != "-" {
			names = append(names, n)
		}
	}
	return names
}

// hiddenFromUpstream are the client's credential headers, removed before
// the upstream: secrets, and the username, which the upstream must take
// from the identity headers (after a Bearer login it is whatever the
// client wrote).
var hiddenFromUpstream = []string{clientapi.HeaderAPISecret, clientapi.HeaderUsername, clientapi.HeaderPassword,
	clientapi.HeaderLicenseCode, clientapi.HeaderHardwareID}

// dropManagedConnectionTokens removes from the Connection header the
// tokens that name an identity or credential header (other tokens, such as
// upgrade, stay).
func (h *AuthHandler) dropManagedConnectionTokens(hdr http.Header) {
	values := hdr.Values("Connection")
	if len(values) == 0 {
		return
	}
	managed := func(token string) bool {
		name := http.CanonicalHeaderKey(strings.TrimSpace(token))
		return slices.Contains(h.strip, name) || slices.Contains(hiddenFromUpstream, name) || name == "Authorization"
	}
	var kept []string
	for _, v := range values {
		for _, token := range strings.Split(v, ",") {
			if t := strings.TrimSpace(token); t != "" && !managed(t) {
				kept = append(kept, t)
			}
		}
	}
	hdr.Del("Connection")
	if len(kept) > 0 {
		hdr.Set("Connection", strings.Join(kept, ", "))
	}
}

// ServeHTTP implements caddyhttp.MiddlewareHandler.
func (h *AuthHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	// Nothing the client sent under our identity headers may go on, nor
	// may the client name them (or the credential headers) in Connection,
	// which would make the proxy drop what the guard sets as hop-by-hop.
	for _, name := range h.strip {
		r.Header.Del(name)
	}
	h.dropManagedConnectionTokens(r.Header)
	// Nor may anything come after the body: a client's trailer fields
	// (an identity header, a password) would reach an upstream that
	// merges trailers into headers. The proxied request carries none.
	r.Trailer = nil
	r.Header.Del("Trailer")
	live, err := h.app.serving()
	if err != nil {
		w.Header().Set("Retry-After", "1")
		httpx.WriteProblem(w, h.logger, err)
		return nil
	}
	r = r.WithContext(access.WithClientAddress(r.Context(), clientIP(r)))
	auth := clientapi.Authenticator{Service: live.svc}
	app, user, err := auth.User(r, *h.RequireActiveMembership)
	if err == nil && len(h.Apps) > 0 && !slices.Contains(h.Apps, app.ID) {
		err = access.Refusal(access.CodeInvalidApplication, "This application may not use this service.")
	}
	if err == nil && user == nil && h.AllowAnonymous != "app" {
		err = access.Refusal(access.CodeAuthenticationRequired, "Only logged in users are allowed to access")
	}
	if err != nil {
		httpx.WriteProblem(w, h.logger, err)
		return nil
	}

	// The upstream never sees a secret or a user's credentials (the raw
	// hardware id included), nor any Bearer token: another scheme (Basic
	// for the upstream's own login) passes. Nor an administrator's
	// dashboard session, which a browser sends to every path of a host
	// that serves the dashboard too.
	clientapi.DropBearerTokens(r.Header)
	dropCookies(r.Header, dashboard.IsSessionCookie)
	for _, name := range hiddenFromUpstream {
		r.Header.Del(name)
	}
	if user != nil {
		h.setIdentity(r, app, user, live.svc)
	}
	return next.ServeHTTP(w, r)
}

func (h *AuthHandler) setIdentity(r *http.Request, app *access.App, u *access.UserView, svc *access.Service) {
	expires := ""
	switch {
	case u.Membership.IsLifetime:
		expires = "lifetime"
	case u.Membership.ExpiresAt != nil:
		expires = httpx.RFC3339(*u.Membership.ExpiresAt)
	}
	repl := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	repl.Set("http.auth.user.id", u.ID)
	repl.Set("http.auth.user.username", u.Username)
	repl.Set("http.auth.user.app_id", app.ID)
	repl.Set("http.auth.user.membership_active", u.Membership.IsActive(svc.Now()))
	repl.Set("http.auth.user.membership_expires_at", expires)
	for _, hv := range [][2]string{
		{h.Headers.UserID, u.ID}, {h.Headers.Username, u.Username},
		{h.Headers.AppID, app.ID}, {h.Headers.MembershipExpiresAt, expires},
	} {
		if hv[0] != "-" {
			r.Header.Set(hv[0], hv[1])
		}
	}
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*AuthHandler)(nil)
	_ caddy.Validator             = (*AuthHandler)(nil)
	_ caddyhttp.MiddlewareHandler = (*AuthHandler)(nil)
)
