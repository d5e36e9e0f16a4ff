package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"time"
)

// cookieName is the dashboard session cookie. The __Host- prefix (which
// requires Secure and Path=/) is used when cookies are secure.
const (
	cookieName       = "aa_dash"
	secureCookieName = "__Host-aa_dash"
	csrfField        = "csrf"
	csrfHeader       = "X-CSRF-Token"
)

// IsSessionCookie reports whether a cookie of this name is the
// dashboard's session (either spelling): a proxy on the dashboard's host,
// where browsers send it along with every request, removes it from what it
// forwards.
func IsSessionCookie(name string) bool { return name == cookieName || name == secureCookieName }

// secureCookies reports whether r's session cookie is Secure: as
// configured (secure_cookies, for a site behind a proxy that ends TLS), and
// always on a request that came over TLS, so that a session opened over
// HTTPS is never sent to a plain-HTTP listener of the same host.
func (s *Server) secureCookies(r *http.Request) bool { return s.cfg.SecureCookies || r.TLS != nil }

func (s *Server) cookieName(r *http.Request) string {
	if s.secureCookies(r) {
		return secureCookieName
	}
	return cookieName
}

// sessionToken is the token of the request's session cookie, or "".
func (s *Server) sessionToken(r *http.Request) string {
	c, err := r.Cookie(s.cookieName(r))
	if err != nil {
		return ""
	}
	return c.Value
}

// setSessionCookie sends the session cookie: HttpOnly, SameSite=Lax, and
// Secure as secureCookies says.
func (s *Server) setSessionCookie(w http.ResponseWriter, r *http.Request, token string, expires time.Time) {
	secure := s.secureCookies(r)
	c := &http.Cookie{Name: s.cookieName(r), Value: token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: secure, Expires: expires}
	if token == "" {
		c.MaxAge = -1
	}
	if !secure {
		c.Path = s.cfg.Prefix + "/"
	}
	http.SetCookie(w, c)
}

// csrfToken is the session's CSRF token, derived from its secret token:
// nothing more to store, and it changes with the session.
func csrfToken(sessionToken string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("app-access dashboard csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validCSRF reports whether r carries the session's CSRF token, as a form
// field or the X-CSRF-Token header, compared in constant time.
func validCSRF(r *http.Request, sessionToken string) bool {
	got := r.Header.Get(csrfHeader)
	if got == "" {
		got = r.PostFormValue(csrfField)
	}
	want := csrfToken(sessionToken)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
