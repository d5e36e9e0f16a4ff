package caddymodule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddytest"

	"github.com/appaccess/appaccess/accessapi/storetest"
)

// Every test of this package talks to one in-process Caddy (the caddytest
// harness, admin on localhost:2999); they must not run in parallel.

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

const (
	apiBase   = "http://localhost:9080"
	guardBase = "http://localhost:9081"
	adminBase = "http://localhost:2999/app_access"
)

// server is a running Caddy with App Access on a database of its own.
type server struct {
	t        *testing.T
	tester   *caddytest.Tester
	database string
}

// startServer loads a config with the client API on :9080 and, when
// upstream is set, the guard in front of it on :9081.
func startServer(t *testing.T, upstream string, guardOptions string) *server {
	t.Helper()
	s := &server{t: t, tester: caddytest.NewTester(t), database: storetest.DatabaseName(t)}
	s.tester.InitServer(s.config(upstream, guardOptions), "caddyfile")
	return s
}

func (s *server) config(upstream, guardOptions string) string {
	cfg := fmt.Sprintf(`{
	admin localhost:2999
	http_port 9080
	https_port 9443
	auto_https off
	grace_period 5s
	app_access {
		mongodb_uri "%s"
		database %s
		staleness 5s
	}
}

:9080 {
	app_access_api
}
`, storetest.URI(s.t), s.database)
	if upstream != "" {
		cfg += fmt.Sprintf(`
:9081 {
	app_access_auth {
		%s
	}
	reverse_proxy %s
}
`, guardOptions, strings.TrimPrefix(upstream, "http://"))
	}
	return cfg
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func (r response) str(key string) string {
	v, _ := r.body[key].(string)
	return v
}

func (r response) obj(key string) map[string]any {
	v, _ := r.body[key].(map[string]any)
	return v
}

// request sends a request; body is JSON-encoded unless it is a string or nil.
func request(t *testing.T, method, url string, headers map[string]string, body any) response {
	t.Helper()
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
			t.Fatal(err)
		}
		rdr = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, rdr)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, header: res.Header, raw: raw}
	if len(raw) > 0 && strings.Contains(res.Header.Get("Content-Type"), "json") {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			t.Fatalf("%s %s: body is not JSON: %s", method, url, raw)
		}
	}
	return out
}

// expect fails unless the response has the status (and, if set, the code).
func expect(t *testing.T, r response, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.raw)
	}
	if code != "" {
		if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Fatalf("content type %q, want application/problem+json", ct)
		}
		if got := r.str("code"); got != code {
			t.Fatalf("code %q, want %q; body %s", got, code, r.raw)
		}
		for _, k := range []string{"type", "title", "detail"} {
			if r.str(k) == "" {
				t.Fatalf("problem without %s: %s", k, r.raw)
			}
		}
		if int(r.body["status"].(float64)) != status {
			t.Fatalf("problem status %v, want %d", r.body["status"], status)
		}
	}
}

// app is an application created through the admin API.
type app struct {
	id, key, secret string
}

func (a app) headers(extra ...string) map[string]string {
	h := map[string]string{"x-api-key": a.key, "x-api-secret": a.secret}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

func createApp(t *testing.T, settings map[string]any) app {
	t.Helper()
	if settings == nil {
		settings = map[string]any{}
	}
	if _, ok := settings["name"]; !ok {
		settings["name"] = "test app"
	}
	r := request(t, "POST", adminBase+"/apps", nil, settings)
	expect(t, r, 201, "")
	return app{id: r.str("id"), key: r.str("api_key"), secret: r.str("api_secret")}
}

// issueCode issues one license with these settings and returns its code.
func issueCode(t *testing.T, a app, settings map[string]any) string {
	t.Helper()
	r := request(t, "POST", adminBase+"/apps/"+a.id+"/licenses", nil, settings)
	expect(t, r, 201, "")
	return r.body["licenses"].([]any)[0].(map[string]any)["code"].(string)
}

func signUp(t *testing.T, a app, username, password string) string {
	t.Helper()
	r := request(t, "POST", apiBase+"/sign_up", a.headers(), map[string]any{"username": username, "password": password})
	expect(t, r, 201, "")
	return r.str("id")
}

func login(t *testing.T, a app, credentials map[string]any, hardwareID string) response {
	t.Helper()
	body := map[string]any{"credentials": credentials}
	if hardwareID != "" {
		body["hardware_id"] = hardwareID
	}
	return request(t, "POST", apiBase+"/auth/login", a.headers(), body)
}

// activeUser signs a password user up and gives them an hour.
func activeUser(t *testing.T, a app, username, password string) string {
	t.Helper()
	id := signUp(t, a, username, password)
	code := issueCode(t, a, map[string]any{"minutes": 60})
	r := request(t, "POST", apiBase+"/activate_license", a.headers(), map[string]any{"code": code, "username": username, "password": password})
	expect(t, r, 201, "")
	return id
}
