package clientapi

import (
	"context"
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// offlineToken serves POST /auth/offline_token: a signed token that lets
// the client check the user's license without the network until it
// expires. The user is authenticated as GET /app_context does.
func (h *Handler) offlineToken(ctx context.Context, w http.ResponseWriter, r *http.Request, app *access.App) error {
	tok, err := h.svc().IssueOfflineToken(ctx, app, HeaderCredentials(r))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, wire.OfflineToken{Token: tok.Token, ValidUntil: httpx.RFC3339(tok.ValidUntil)})
	return nil
}
