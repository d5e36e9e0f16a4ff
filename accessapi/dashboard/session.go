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

func (s *Server) cookieName() string {
	if s.cfg.SecureCookies {
		return secureCookieName
	}
	return cookieName
}

// sessionToken is the token of the request's session cookie, or "".
func (s *Server) sessionToken(r *http.Request) string {
	c, err := r.Cookie(s.cookieName())
	if err != nil {
		return ""
	}
	return c.Value
}

// setSessionCookie sends the session cookie: HttpOnly, SameSite=Lax, and
// Secure as configured (never guessed from the request).
func (s *Server) setSessionCookie(w http.ResponseWriter, token string, expires time.Time) {
	c := &http.Cookie{Name: s.cookieName(), Value: token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.cfg.SecureCookies, Expires: expires}
	if token == "" {
		c.MaxAge = -1
	}
	if !s.cfg.SecureCookies {
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
