package adminapi

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/appaccess/appaccess/accessapi/access"
)

// sellerScopes maps each management route a seller key may call to the
// scope it needs. Every one is below /apps/{app}; a route not listed
// (applications, seller keys, administrators) is for administrators only.
var sellerScopes = map[string]string{
	"POST /apps/{app}/licenses":          access.ScopeLicensesCreate,
	"GET /apps/{app}/licenses":           access.ScopeLicensesRead,
	"POST /apps/{app}/licenses/lookup":   access.ScopeLicensesRead,
	"GET /apps/{app}/licenses/{license}": access.ScopeLicensesRead,

	"GET /apps/{app}/activity":                 access.ScopeUsersRead,
	"GET /apps/{app}/users":                    access.ScopeUsersRead,
	"GET /apps/{app}/users/{user}":             access.ScopeUsersRead,
	"GET /apps/{app}/users/{user}/activations": access.ScopeUsersRead,
	"DELETE /apps/{app}/users/{user}":          access.ScopeUsersWrite,
	"POST /apps/{app}/users/{user}/ban":        access.ScopeUsersWrite,
	"POST /apps/{app}/users/{user}/unban":      access.ScopeUsersWrite,
	"DELETE /apps/{app}/users/{user}/devices":  access.ScopeUsersWrite,
	"DELETE /apps/{app}/users/{user}/sessions": access.ScopeUsersWrite,
	"POST /apps/{app}/users/{user}/grant":      access.ScopeUsersWrite,
	"POST /apps/{app}/users/{user}/password":   access.ScopeUsersWrite,

	"GET /apps/{app}/variables":           access.ScopeContentWrite,
	"PUT /apps/{app}/variables/{name}":    access.ScopeContentWrite,
	"DELETE /apps/{app}/variables/{name}": access.ScopeContentWrite,
	"POST /apps/{app}/files":              access.ScopeContentWrite,
	"GET /apps/{app}/files":               access.ScopeContentWrite,
	"DELETE /apps/{app}/files/{file}":     access.ScopeContentWrite,

	"GET /apps/{app}/audit": access.ScopeAuditRead,
}

// ScopeMatcher tells which scope a management request under a prefix
// needs from a seller key, and which application it acts on.
type ScopeMatcher struct {
	prefix string
	mux    *http.ServeMux
}

// NewScopeMatcher returns the matcher of the routes under prefix.
func NewScopeMatcher(prefix string) *ScopeMatcher {
	m := &ScopeMatcher{prefix: prefix, mux: http.NewServeMux()}
	for pattern := range sellerScopes {
		method, path, _ := strings.Cut(pattern, " ")
		m.mux.Handle(method+" "+prefix+path, http.NotFoundHandler())
	}
	return m
}

// Match returns the scope r needs and the application it names; ok is
// false for a route no seller key may call.
func (m *ScopeMatcher) Match(r *http.Request) (scope, appID string, ok bool) {
	_, pattern := m.mux.Handler(r)
	method, path, found := strings.Cut(pattern, " ")
	if !found || pattern == "" {
		return "", "", false
	}
	scope, ok = sellerScopes[method+" "+strings.TrimPrefix(path, m.prefix)]
	if !ok {
		return "", "", false
	}
	// Every scoped route starts /apps/{app}/.
	rest := strings.TrimPrefix(r.URL.EscapedPath(), m.prefix+"/apps/")
	seg, _, _ := strings.Cut(rest, "/")
	appID, err := url.PathUnescape(seg)
	if err != nil {
		return "", "", false
	}
	return scope, appID, true
}
