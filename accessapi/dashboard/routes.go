package dashboard

import (
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminapi"
)

// pageFunc serves one page for a signed-in administrator.
type pageFunc func(w http.ResponseWriter, r *http.Request, si *signedIn) error

// routes maps every dashboard page below the prefix to its handler.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	p := s.cfg.Prefix
	mux.HandleFunc("GET "+p+"/signin", s.signInForm)
	mux.HandleFunc("POST "+p+"/signin", s.signIn)
	for pattern, fn := range map[string]pageFunc{
		"POST /signout": s.signOut,
		"GET /{$}":      s.home,
		"POST /apps":    s.createApp,

		"GET /apps/{app}":                s.showApp,
		"POST /apps/{app}/settings":      s.updateApp,
		"POST /apps/{app}/rotate_secret": s.rotateSecret,

		"POST /apps/{app}/signing_keys":              s.rotateSigningKey,
		"POST /apps/{app}/signing_keys/{kid}/retire": s.retireSigningKey,

		"GET /apps/{app}/licenses":                   s.licenses,
		"POST /apps/{app}/licenses":                  s.generateLicenses,
		"POST /apps/{app}/licenses/search":           s.searchLicense,
		"POST /apps/{app}/licenses/{license}/delete": s.deleteLicense,

		"GET /apps/{app}/users":                s.users,
		"GET /apps/{app}/users/{user}":         s.showUser,
		"POST /apps/{app}/users/{user}/{verb}": s.userAction,

		"GET /apps/{app}/content":              s.content,
		"POST /apps/{app}/variables":           s.setVariable,
		"POST /apps/{app}/variables/delete":    s.deleteVariable,
		"POST /apps/{app}/files":               s.uploadFile,
		"POST /apps/{app}/files/{file}/delete": s.deleteFile,

		"GET /apps/{app}/keys":               s.keys,
		"POST /apps/{app}/keys":              s.createKey,
		"POST /apps/{app}/keys/{key}/revoke": s.revokeKey,

		"GET /apps/{app}/webhooks":                                            s.webhooks,
		"POST /apps/{app}/webhooks":                                           s.createWebhook,
		"GET /apps/{app}/webhooks/{webhook}":                                  s.showWebhook,
		"POST /apps/{app}/webhooks/{webhook}/settings":                        s.updateWebhook,
		"POST /apps/{app}/webhooks/{webhook}/rotate_secret":                   s.rotateWebhookSecret,
		"POST /apps/{app}/webhooks/{webhook}/delete":                          s.deleteWebhook,
		"POST /apps/{app}/webhooks/{webhook}/deliveries/{delivery}/redeliver": s.redeliver,

		"GET /apps/{app}/audit": s.audit,
		"GET /audit":            s.serverAudit,
	} {
		method, path, _ := httpCut(pattern)
		mux.Handle(method+" "+p+path, s.signedInOnly(fn))
	}
	mux.HandleFunc(p+"/", func(w http.ResponseWriter, r *http.Request) {
		s.renderError(w, r, access.Refusal(access.CodeNotFound, "There is no such page."))
	})
	return mux
}

func httpCut(pattern string) (method, path string, ok bool) {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == ' ' {
			return pattern[:i], pattern[i+1:], true
		}
	}
	return "", pattern, false
}

// signedInOnly runs fn for a live session, sending anyone else to the
// sign-in page; an unsafe request must carry the session's CSRF token.
func (s *Server) signedInOnly(fn pageFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		svc, err := s.cfg.Service()
		if err != nil {
			s.renderError(w, r, err)
			return
		}
		token := s.sessionToken(r)
		sess, err := svc.AdminSessionOf(r.Context(), token)
		if err != nil {
			if access.CodeOf(err) == access.CodeAuthenticationRequired {
				http.Redirect(w, r, s.cfg.Prefix+"/signin", http.StatusSeeOther)
				return
			}
			s.renderError(w, r, err)
			return
		}
		if !safeMethod(r.Method) {
			r.Body = http.MaxBytesReader(w, r.Body, maxUploadBytes)
			if !validCSRF(r, token) {
				s.renderError(w, r, access.Refusal(access.CodeForbidden, "The form has expired or did not come from this dashboard; reload the page and try again."))
				return
			}
		}
		si := &signedIn{token: token, session: sess, svc: svc, csrf: csrfToken(token), username: sess.Username}
		ctx := adminapi.WithPrincipal(r.Context(), adminapi.Principal{Kind: PrincipalDashboard, Name: sess.Username})
		r = r.WithContext(withSignedIn(ctx, si))
		if err := fn(w, r, si); err != nil {
			s.renderError(w, r, err)
		}
	})
}

// maxUploadBytes bounds a dashboard request body (a file upload).
const maxUploadBytes = 64 << 20

// redirect sends the browser on after a successful form (post/redirect/get).
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, path string) error {
	http.Redirect(w, r, s.cfg.Prefix+path, http.StatusSeeOther)
	return nil
}
