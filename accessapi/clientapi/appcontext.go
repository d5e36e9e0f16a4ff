package clientapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
)

// appContext serves GET /app_context.
func (h *Handler) appContext(ctx context.Context, w http.ResponseWriter, r *http.Request, app *access.App) error {
	u, err := h.svc().Authenticate(ctx, app, HeaderCredentials(r), true)
	if err != nil {
		return err
	}
	content, err := h.svc().Content(ctx, app)
	if err != nil {
		return err
	}
	body, err := h.appContextJSON(app, content, u, h.svc().Now())
	if err != nil {
		return err
	}
	httpx.WriteJSONBytes(w, http.StatusOK, body)
	return nil
}

// appContextJSON is the body of GET /app_context: the bytes
// json.Encoder writes for wire.AppContext, with the application's part
// encoded once per change of the application or its content.
func (h *Handler) appContextJSON(app *access.App, content *access.AppContent, u *access.UserView, now time.Time) ([]byte, error) {
	user, err := json.Marshal(userView(u, now))
	if err != nil {
		return nil, fmt.Errorf("encoding the user: %w", err)
	}
	application := h.encodedApps.of(app, content)
	body := make([]byte, 0, len(application)+len(user)+28)
	body = append(body, `{"application":`...)
	body = append(body, application...)
	body = append(body, `,"user":`...)
	body = append(body, user...)
	return append(body, "}\n"...), nil
}

// encodedApps keeps the JSON of each application's part of the context
// (its id, name, variables and files), which is the same for every user
// until the application or its content changes: both are cached values
// replaced, never changed, so their pointers tell a change.
type encodedApps struct{ m sync.Map } // app ID → *encodedApp

type encodedApp struct {
	app     *access.App
	content *access.AppContent
	json    []byte
}

func (e *encodedApps) of(app *access.App, content *access.AppContent) []byte {
	if v, ok := e.m.Load(app.ID); ok {
		if x := v.(*encodedApp); x.app == app && x.content == content {
			return x.json
		}
	}
	b, _ := json.Marshal(applicationView(app, content)) // strings and bools: cannot fail
	e.m.Store(app.ID, &encodedApp{app: app, content: content, json: b})
	return b
}
