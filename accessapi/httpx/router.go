package httpx

import (
	"net/http"
	"path"
	"strings"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
)

// Router routes requests on net/http.ServeMux method patterns
// ("POST /sign_up", "GET /apps/{app}") and is the one 404/405 fallback of
// both APIs: a path no pattern matches is a 404 not_found problem, a known
// path with another method a 405 method_not_allowed problem with Allow.
// Routing comes before any credential check.
type Router struct {
	mux      *http.ServeMux
	logger   *zap.Logger
	notFound string
}

// NewRouter returns an empty router; notFound is the detail of its 404.
func NewRouter(logger *zap.Logger, notFound string) *Router {
	return &Router{mux: http.NewServeMux(), logger: logger, notFound: notFound}
}

// Handle registers h for a ServeMux pattern.
func (rt *Router) Handle(pattern string, h http.Handler) { rt.mux.Handle(pattern, h) }

// Pattern is the registered pattern that serves r, or "" when none does
// (the 404 and 405 answers): a fixed set, fit for a metric's label.
func (rt *Router) Pattern(r *http.Request) string {
	_, pattern := rt.mux.Handler(r)
	return pattern
}

// ServeHTTP routes r, answering a problem where the mux has no route. It
// sets r.Pattern to the pattern that serves r, as ServeMux.ServeHTTP
// does, and to "" when none does: once it returns, r.Pattern is what
// Pattern(r) would be, without matching r again.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.EscapedPath(); p != "" && path.Clean(p) != p && path.Clean(p)+"/" != p {
		// The mux, which matches the escaped path, would redirect to its
		// clean form (an HTML answer, and a POST re-sent elsewhere): no
		// route has an unclean path.
		r.Pattern = ""
		WriteProblem(w, rt.logger, access.Refusal(access.CodeNotFound, rt.notFound))
		return
	}
	h, pattern := rt.mux.Handler(r)
	r.Pattern = pattern
	switch {
	case pattern == "":
		rt.serveFallback(w, r, h)
	case strings.Contains(pattern, "{") || r.RequestURI == "*":
		rt.mux.ServeHTTP(w, r) // matches r again to set its path values
	default:
		// A pattern without wildcards gives no path values: r is served
		// as the mux would serve it, without a second match.
		h.ServeHTTP(w, r)
	}
}

// serveFallback answers a request no pattern serves, given the mux's
// fallback handler for it.
func (rt *Router) serveFallback(w http.ResponseWriter, r *http.Request, fallback http.Handler) {
	// The mux's own answer tells a wrong method (405 and Allow) from an
	// unknown path; keep its status and Allow, and answer a problem.
	rec := &statusRecorder{header: http.Header{}}
	fallback.ServeHTTP(rec, r)
	if rec.status == http.StatusMethodNotAllowed {
		allow := rec.header.Get("Allow")
		w.Header().Set("Allow", allow)
		WriteProblem(w, rt.logger, access.Refusal(access.CodeMethodNotAllowed, "Use "+allow+" for this route."))
		return
	}
	WriteProblem(w, rt.logger, access.Refusal(access.CodeNotFound, rt.notFound))
}

// statusRecorder keeps the status and headers of the mux's fallback answer
// and drops its plain-text body.
type statusRecorder struct {
	header http.Header
	status int
}

func (s *statusRecorder) Header() http.Header         { return s.header }
func (s *statusRecorder) Write(p []byte) (int, error) { return len(p), nil }
func (s *statusRecorder) WriteHeader(status int)      { s.status = status }
