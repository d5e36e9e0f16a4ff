package clientapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
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
	e := h.appContextEncoder()
	defer h.releaseAppContextEncoder(e)
	body, err := h.appContextJSON(e, app, content, u, h.svc().Now())
	if err != nil {
		return err
	}
	httpx.WriteJSONBytes(w, http.StatusOK, body)
	return nil
}

// appContextJSON is the body of GET /app_context: the bytes
// json.Encoder writes for wire.AppContext, with the application's part
// encoded once per change of the application or its content. The body is
// e's, valid until e encodes again.
func (h *Handler) appContextJSON(e *appContextEncoder, app *access.App, content *access.AppContent, u *access.UserView, now time.Time) ([]byte, error) {
	e.body.Reset()
	e.body.WriteString(`{"application":`)
	e.body.Write(h.encodedApps.of(app, content))
	e.body.WriteString(`,"user":`)
	if u == nil {
		e.body.WriteString("null")
	} else {
		e.user = userValue(u, now)
		err := e.json.Encode(&e.user) // writes nothing when it fails
		e.user = wire.User{}          // an idle encoder holds no user
		if err != nil {
			return nil, fmt.Errorf("encoding the user: %w", err)
		}
		e.body.Truncate(e.body.Len() - 1) // the newline Encode ends with
	}
	e.body.WriteString("}\n")
	return e.body.Bytes(), nil
}

// appContextEncoder is what encoding a GET /app_context body takes: reused
// through Handler.appContextEncoders, it costs no allocation per request.
type appContextEncoder struct {
	body bytes.Buffer
	json *json.Encoder // into body
	// user is the user's part while it is encoded: a pointer to it
	// becomes Encode's argument without an allocation.
	user wire.User
}

// maxPooledAppContext is the largest body buffer an appContextEncoder
// keeps for reuse.
const maxPooledAppContext = 64 << 10

// appContextEncoder returns an encoder to release when its body has been
// written.
func (h *Handler) appContextEncoder() *appContextEncoder {
	if e, ok := h.appContextEncoders.Get().(*appContextEncoder); ok {
		return e
	}
	e := new(appContextEncoder)
	e.json = json.NewEncoder(&e.body)
	return e
}

// releaseAppContextEncoder keeps e for another request, unless its body
// grew past maxPooledAppContext.
func (h *Handler) releaseAppContextEncoder(e *appContextEncoder) {
	if e.body.Cap() <= maxPooledAppContext {
		h.appContextEncoders.Put(e)
	}
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
