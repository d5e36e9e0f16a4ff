package clientapi

import (
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// appContext serves GET /app_context.
func (h *Handler) appContext(w http.ResponseWriter, r *http.Request, app *access.App) error {
	u, err := h.svc().Authenticate(r.Context(), app, HeaderCredentials(r), true)
	if err != nil {
		return err
	}
	content, err := h.svc().Content(r.Context(), app)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, wire.AppContext{Application: applicationView(app, content), User: userView(u, h.svc().Now())})
	return nil
}
