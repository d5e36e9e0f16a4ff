package adminapi

import (
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// sellerKeyView describes a key; secret is set only on creation.
func sellerKeyView(k *access.SellerKey, secret string) wire.SellerKey {
	v := wire.SellerKey{ID: k.ID, AppID: k.AppID, Name: k.Name, Scopes: k.Scopes, CreatedAt: httpx.RFC3339(k.CreatedAt), Key: secret}
	if !k.LastUsedAt.IsZero() {
		v.LastUsedAt = httpx.RFC3339(k.LastUsedAt)
	}
	return v
}

// createSellerKey serves POST /apps/{app}/keys: the key's secret is in
// this answer only.
func createSellerKey(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.NewSellerKey
	if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
		return err
	}
	k, err := svc.CreateSellerKey(r.Context(), r.PathValue("app"), b.Name, b.Scopes)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusCreated, sellerKeyView(&k.SellerKey, k.Secret))
	return nil
}

// listSellerKeys serves GET /apps/{app}/keys.
func listSellerKeys(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	ks, err := svc.SellerKeys(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	return writePage(w, ks, "", func(k *access.SellerKey) wire.SellerKey { return sellerKeyView(k, "") })
}

// revokeSellerKey serves DELETE /apps/{app}/keys/{key}.
func revokeSellerKey(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.RevokeSellerKey(r.Context(), r.PathValue("app"), r.PathValue("key")); err != nil {
		return err
	}
	return noContent(w)
}
