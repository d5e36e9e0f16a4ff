package dashboard

import (
	"context"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminapi"
	"github.com/appaccess/appaccess/accessapi/httpx"
)

// Config sets up a Server.
type Config struct {
	// Prefix is the URL path the dashboard is served under, such as
	// "/admin"; the management API is below Prefix+"/api".
	Prefix string
	// SecureCookies marks the session cookie Secure on every request; set
	// it when a proxy in front ends TLS. A request that came over TLS gets
	// a Secure cookie without it.
	SecureCookies bool
	// Service finds the running service.
	Service adminapi.ServiceFunc
	// ClientIP resolves the client's address (honouring trusted proxies),
	// which throttling keys on; nil uses RemoteAddr's host, without the
	// port (a port is per connection: counted by it, a guesser would get
	// a new allowance with each connection).
	ClientIP func(*http.Request) string
	// TrustedOrigins may post cross-origin (CrossOriginProtection), for a
	// dashboard reached under another name; usually empty.
	TrustedOrigins []string
	Logger         *zap.Logger
}

// Server serves the dashboard and the public management API.
type Server struct {
	cfg    Config
	api    *adminapi.Handler
	scopes *adminapi.ScopeMatcher
	pages  *http.ServeMux
	views  *views
	guard  *http.CrossOriginProtection
}

// New returns a Server; it parses every template once.
func New(cfg Config) (*Server, error) {
	cfg.Prefix = strings.TrimRight(cfg.Prefix, "/")
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.ClientIP == nil {
		cfg.ClientIP = httpx.RemoteIP
	}
	v, err := parseViews()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, views: v, guard: http.NewCrossOriginProtection(),
		api:    adminapi.NewHandler(cfg.Prefix+"/api", cfg.Service, cfg.Logger),
		scopes: adminapi.NewScopeMatcher(cfg.Prefix + "/api")}
	for _, o := range cfg.TrustedOrigins {
		if err := s.guard.AddTrustedOrigin(o); err != nil {
			return nil, err
		}
	}
	s.guard.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpx.WriteProblem(w, cfg.Logger, access.Refusal(access.CodeForbidden, "Cross-origin requests are refused."))
	}))
	s.pages = s.routes()
	return s, nil
}

// ServeHTTP serves a request whose path starts with the prefix; every
// answer over TLS carries HSTS.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setStrictTransportSecurity(w, r)
	r = r.WithContext(access.WithClientAddress(r.Context(), s.cfg.ClientIP(r)))
	if strings.HasPrefix(r.URL.Path, s.cfg.Prefix+"/api/") {
		// A seller key's request comes from a shop's server, with no
		// browser headers; a session's request is guarded like a page.
		if bearer(r) != "" {
			s.serveAPI(w, r)
			return
		}
		s.guard.Handler(http.HandlerFunc(s.serveAPI)).ServeHTTP(w, r)
		return
	}
	s.guard.Handler(s.pages).ServeHTTP(w, r)
}

// bearer is the token of an Authorization: Bearer header, or "".
func bearer(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// serveAPI authenticates a management API request, by seller key or by
// dashboard session, and hands it to the management routes with its
// principal.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	p, err := s.apiPrincipal(r)
	if err != nil {
		httpx.WriteProblem(w, s.cfg.Logger, err)
		return
	}
	s.api.ServeHTTP(w, r.WithContext(adminapi.WithPrincipal(r.Context(), p)))
}

// The principal kinds of the public management API.
const (
	PrincipalSellerKey = "seller_key"
	PrincipalDashboard = "dashboard"
)

func (s *Server) apiPrincipal(r *http.Request) (adminapi.Principal, error) {
	svc, err := s.cfg.Service()
	if err != nil {
		return adminapi.Principal{}, err
	}
	if token := bearer(r); token != "" {
		key, err := svc.AuthenticateSellerKey(r.Context(), token)
		if err != nil {
			return adminapi.Principal{}, err
		}
		scope, appID, ok := s.scopes.Match(r)
		switch {
		case !ok:
			return adminapi.Principal{}, access.Refusal(access.CodeForbidden, "Seller keys cannot call this route.")
		case appID != key.AppID:
			return adminapi.Principal{}, access.Refusal(access.CodeForbidden, "This key cannot act on this application.")
		case !key.HasScope(scope):
			return adminapi.Principal{}, access.Refusal(access.CodeForbidden, "This key lacks the scope "+scope+".")
		}
		return adminapi.Principal{Kind: PrincipalSellerKey, Name: key.ID}, nil
	}
	token := s.sessionToken(r)
	sess, err := svc.AdminSessionOf(r.Context(), token)
	if err != nil {
		return adminapi.Principal{}, err
	}
	if !safeMethod(r.Method) && !validCSRF(r, token) {
		return adminapi.Principal{}, access.Refusal(access.CodeForbidden, "The CSRF token is missing or wrong.")
	}
	if adminEndpointOnly(strings.TrimPrefix(r.URL.Path, s.cfg.Prefix+"/api")) {
		return adminapi.Principal{}, access.Refusal(access.CodeForbidden,
			"Administrators, export, import and backup are on the admin endpoint only.")
	}
	return adminapi.Principal{Kind: PrincipalDashboard, Name: sess.Username}, nil
}

// adminEndpointOnly reports whether a management API path (after the
// API's prefix) is one a dashboard session may not call: administrators
// (an account of the public site must not make another), and the routes
// that read or write the whole store or a file on the server (export
// holds every password hash; backup writes the database to a path the
// caller names; import fills the store).
func adminEndpointOnly(path string) bool {
	for _, p := range []string{"/admins", "/export", "/import", "/backup"} {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

type adminKey struct{}

// signedIn is the session a page handler runs under.
type signedIn struct {
	token    string
	session  *access.AdminSession
	svc      *access.Service
	csrf     string
	username string
}

func withSignedIn(ctx context.Context, si *signedIn) context.Context {
	return context.WithValue(ctx, adminKey{}, si)
}

func signedInFrom(ctx context.Context) *signedIn {
	si, _ := ctx.Value(adminKey{}).(*signedIn)
	return si
}
