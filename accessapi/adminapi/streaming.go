package adminapi

import (
	"net/http"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// streaming marks a route whose body or answer is a stream (a file upload,
// an import, an export): it lifts the server's read and write deadlines
// before the route reads anything, since such a stream takes as long as
// the data and the link need. Caddy's admin endpoint reads a request for
// 10 s at most, which a file of a few megabytes on a slow link outlasts.
// The routes run after the caller was authenticated (the admin endpoint's
// access controls, or a seller key), so no anonymous client holds a
// connection open this way.
func streaming(fn route) route {
	return func(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
		noDeadlines(w)
		return fn(w, r, svc)
	}
}

// noDeadlines lifts the server's read and write deadlines; where the
// writer cannot, the deadlines stay.
func noDeadlines(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}
