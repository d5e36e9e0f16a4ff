package clientapitest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
)

// WarmTokenRequest creates an application on svc, signs a user up with a
// lifetime license through serve (the application's client API, however it
// is wrapped) and logs them in, and returns the token path's request: GET
// /app_context made with ctx, with the application's credentials, the
// session's Bearer token and a nonce. The benchmarks of that path use it.
func WarmTokenRequest(tb testing.TB, ctx context.Context, svc *access.Service, serve http.HandlerFunc) *http.Request {
	tb.Helper()
	name := "bench"
	app, err := svc.CreateApp(ctx, access.AppSettings{Name: &name})
	if err != nil {
		tb.Fatal(err)
	}
	codes, err := svc.CreateLicenses(ctx, app.ID, access.LicenseRequest{Count: 1, Grant: access.Grant{GrantsLifetimeAccess: true}})
	if err != nil {
		tb.Fatal(err)
	}
	withApp := func(req *http.Request) *http.Request {
		req.Header.Set(clientapi.HeaderAPIKey, app.APIKey)
		req.Header.Set(clientapi.HeaderAPISecret, app.APISecret)
		return req
	}
	post := func(path, body string) []byte {
		rec := httptest.NewRecorder()
		serve(rec, withApp(httptest.NewRequest("POST", path, strings.NewReader(body))))
		if rec.Code/100 != 2 {
			tb.Fatalf("POST %s: %d %s", path, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	post("/sign_up", `{"username":"ann","password":"vortex-lamp-71"}`)
	post("/activate_license", `{"username":"ann","password":"vortex-lamp-71","code":"`+codes[0].Code+`"}`)
	var sess struct {
		Token string `json:"session_token"`
	}
	if err := json.Unmarshal(post("/auth/login", `{"credentials":{"username":"ann","password":"vortex-lamp-71"}}`), &sess); err != nil {
		tb.Fatal(err)
	}
	req := withApp(httptest.NewRequestWithContext(ctx, "GET", "/app_context", nil))
	req.Header.Set("Authorization", "Bearer "+sess.Token)
	req.Header.Set(clientapi.HeaderNonce, "bench-nonce-0001")
	return req
}

// DiscardWriter is a ResponseWriter that keeps only the headers and the
// status: a benchmark of a handler measures the handler, not a recorder.
type DiscardWriter struct {
	Head   http.Header
	Status int
}

// Header implements http.ResponseWriter.
func (w *DiscardWriter) Header() http.Header {
	if w.Head == nil {
		w.Head = http.Header{}
	}
	return w.Head
}

// Write implements http.ResponseWriter, dropping p.
func (w *DiscardWriter) Write(p []byte) (int, error) { return len(p), nil }

// WriteHeader implements http.ResponseWriter.
func (w *DiscardWriter) WriteHeader(status int) { w.Status = status }

// Reset makes w ready for the next answer, keeping its header map.
func (w *DiscardWriter) Reset() { clear(w.Head); w.Status = 0 }
