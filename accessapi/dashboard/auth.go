package dashboard

import (
	"errors"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
)

// signInForm serves GET /signin.
func (s *Server) signInForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "signin", page{Title: "Sign in"})
}

// signIn serves POST /signin: password and, when enrolled, TOTP code. A
// new session replaces the one the browser had, so a session fixed before
// sign-in is worthless.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	svc, err := s.cfg.Service()
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if old := s.sessionToken(r); old != "" {
		_ = svc.SignOutAdmin(r.Context(), old)
	}
	token, sess, err := svc.SignInAdmin(r.Context(), r.PostFormValue("username"), r.PostFormValue("password"), r.PostFormValue("code"))
	if err != nil {
		var fault *access.SignInFault
		if errors.As(err, &fault) {
			// The client is answered as for a wrong password; only the
			// operator learns the cause (no secret in it).
			s.cfg.Logger.Error("dashboard sign-in failed on the server's side; the administrator cannot sign in until it is fixed (another file key? run admins totp-disable and enrol again)",
				zap.String("username", fault.Username), zap.Error(fault.Cause))
		}
		var e *access.Error
		if errors.As(err, &e) && e.Code == access.CodeInvalidCredentials {
			s.render(w, r, http.StatusUnauthorized, "signin", page{Title: "Sign in", Error: e.Detail})
			return
		}
		s.renderError(w, r, err)
		return
	}
	// The cookie lasts the session's longest life; the idle timeout is
	// the server's to enforce (a cookie cannot be moved on without a write
	// to every answer).
	s.setSessionCookie(w, r, token, sess.CreatedAt.Add(access.AdminSessionTTL))
	http.Redirect(w, r, s.cfg.Prefix+"/", http.StatusSeeOther)
}

// signOut serves POST /signout.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if err := si.svc.SignOutAdmin(r.Context(), si.token); err != nil {
		return err
	}
	s.setSessionCookie(w, r, "", time.Time{})
	return s.redirect(w, r, "/signin")
}
