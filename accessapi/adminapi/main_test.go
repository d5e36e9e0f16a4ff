package adminapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminapi"
	"github.com/appaccess/appaccess/accessapi/adminapi/adminapitest"
	"github.com/appaccess/appaccess/accessapi/openapi/openapitest"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// testServer is the management API over the real store (adminapitest),
// with request helpers.
type testServer struct {
	t     *testing.T
	url   string
	svc   *access.Service
	store access.Store
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	s := adminapitest.New(t)
	return &testServer{t: t, url: s.URL + adminapi.DefaultPrefix, svc: s.Service, store: s.Store}
}

// answer is a response with its body read.
type answer struct {
	status int
	header http.Header
	raw    []byte
}

// problem decodes a problem body, failing unless the answer is one.
func (a answer) problem(t *testing.T) wire.Problem {
	t.Helper()
	if ct := a.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q, want application/problem+json; body %s", ct, a.raw)
	}
	var p wire.Problem
	if err := json.Unmarshal(a.raw, &p); err != nil {
		t.Fatalf("problem body %s: %v", a.raw, err)
	}
	if p.Status != a.status || p.Type != wire.ProblemTypePrefix+p.Code || p.Title == "" || p.Detail == "" {
		t.Fatalf("problem %+v of a %d answer", p, a.status)
	}
	return p
}

// do sends a request; a string or []byte body is sent as is, anything else
// as JSON.
func (s *testServer) do(method, path string, header http.Header, body any) answer {
	s.t.Helper()
	var rdr io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rdr = strings.NewReader(b)
	case []byte:
		rdr = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rdr = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, s.url+path, rdr)
	if err != nil {
		s.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	checkAgainstDocument(s.t, req, res, raw)
	return answer{status: res.StatusCode, header: res.Header, raw: raw}
}

// decode sends a request, expects the status and decodes the JSON answer.
func decode[T any](s *testServer, status int, method, path string, body any) T {
	s.t.Helper()
	a := s.do(method, path, nil, body)
	if a.status != status {
		s.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, a.status, status, a.raw)
	}
	var v T
	if err := json.Unmarshal(a.raw, &v); err != nil {
		s.t.Fatalf("%s %s: %s: %v", method, path, a.raw, err)
	}
	return v
}

func (s *testServer) createApp(settings map[string]any) wire.App {
	s.t.Helper()
	if settings == nil {
		settings = map[string]any{}
	}
	if _, ok := settings["name"]; !ok {
		settings["name"] = "test app"
	}
	return decode[wire.App](s, http.StatusCreated, "POST", "/apps", settings)
}

// checkAgainstDocument fails the test when an answer differs from the
// management API's OpenAPI document.
func checkAgainstDocument(t *testing.T, req *http.Request, res *http.Response, raw []byte) {
	t.Helper()
	v, err := openapitest.Management()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(req, res, raw); err != nil {
		t.Error(err)
	}
}
