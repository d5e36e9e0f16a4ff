package dashboard

import (
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
)

// keysPage is the data of the seller keys page; Created is set only in
// the answer that made a key, with its secret.
type keysPage struct {
	Keys    []access.SellerKey
	Scopes  []string
	Created *access.NewSellerKey
}

// keys serves GET /apps/{app}/keys.
func (s *Server) keys(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	return s.renderKeys(w, r, si, http.StatusOK, nil)
}

func (s *Server) renderKeys(w http.ResponseWriter, r *http.Request, si *signedIn, status int, created *access.NewSellerKey) error {
	app, err := si.svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	ks, err := si.svc.SellerKeys(r.Context(), app.ID)
	if err != nil {
		return err
	}
	p := page{Title: "Seller keys", App: app, Data: keysPage{Keys: ks, Scopes: access.SellerKeyScopes, Created: created}}
	if created != nil {
		p.Notice = "Key created. Copy it now: it is not shown again."
	}
	s.render(w, r, status, "keys", p)
	return nil
}

// createKey serves POST /apps/{app}/keys.
func (s *Server) createKey(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if err := parseForm(r, "scopes"); err != nil {
		return err
	}
	k, err := si.svc.CreateSellerKey(r.Context(), r.PathValue("app"), r.PostFormValue("name"), r.PostForm["scope"])
	if err != nil {
		return err
	}
	return s.renderKeys(w, r, si, http.StatusCreated, k)
}

// revokeKey serves POST /apps/{app}/keys/{key}/revoke.
func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if err := si.svc.RevokeSellerKey(r.Context(), r.PathValue("app"), r.PathValue("key")); err != nil {
		return err
	}
	return s.redirect(w, r, "/apps/"+r.PathValue("app")+"/keys")
}
