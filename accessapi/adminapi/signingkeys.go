package adminapi

import (
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
)

// rotateSigningKey serves POST /apps/{app}/signing_keys: a new active key;
// the previous ones stay published until they are retired.
func rotateSigningKey(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	k, err := svc.RotateSigningKey(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, signingKeyView(k, true))
	return nil
}

// retireSigningKey serves DELETE /apps/{app}/signing_keys/{kid}; the
// active key cannot be retired (409).
func retireSigningKey(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.RetireSigningKey(r.Context(), r.PathValue("app"), r.PathValue("kid")); err != nil {
		return err
	}
	return noContent(w)
}
