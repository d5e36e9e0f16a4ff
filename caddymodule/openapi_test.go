package caddymodule

import (
	"net/http"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/openapi/openapitest"
)

// checkAgainstDocument fails the test when an answer of the client API
// (apiBase) or of the management API (adminBase) differs from its OpenAPI
// document. Every request of these tests goes out through requestWith,
// which calls it; answers of the guard and of Caddy's own admin routes are
// not App Access's documents and pass unchecked, and so are the dashboard's
// (/admin/ on the site: HTML pages, and the management API's routes again
// under /admin/api/, for seller keys).
func checkAgainstDocument(t *testing.T, req *http.Request, res *http.Response, body []byte) {
	t.Helper()
	var (
		v   *openapitest.Validator
		err error
	)
	switch url := req.URL.String(); {
	case strings.HasPrefix(url, apiBase+"/admin/"):
		return
	case strings.HasPrefix(url, apiBase+"/"):
		v, err = openapitest.Client()
	case strings.HasPrefix(url, adminBase+"/"):
		v, err = openapitest.Management()
	default:
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(req, res, body); err != nil {
		t.Error(err)
	}
}

// TestDocumentsAreServed: GET /openapi.json on the site and GET
// /app_access/openapi.json on the admin endpoint answer the embedded
// documents, the client one without application credentials.
func TestDocumentsAreServed(t *testing.T) {
	startServer(t, "", "")
	for _, tc := range []struct{ url, title string }{
		{apiBase + "/openapi.json", "App Access client API"},
		{adminBase + "/openapi.json", "App Access management API"},
	} {
		r := request(t, "GET", tc.url, nil, nil)
		expect(t, r, 200, "")
		if got := r.obj("info")["title"]; got != tc.title || r.str("openapi") != "3.1.0" {
			t.Errorf("%s: title %v, openapi %q", tc.url, got, r.str("openapi"))
		}
	}
}
