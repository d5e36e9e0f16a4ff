package caddymodule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/caddyserver/certmagic"

	"github.com/appaccess/appaccess/accessapi/storetest"
)

// Every test of this package talks to one in-process Caddy (the caddytest
// harness); they must not run in parallel. The process keeps to itself:
// HOME and the XDG folders point into a temporary folder (Caddy writes its
// autosave and data there, not in the user's home), configs turn
// persist_config off, and every port is a free one picked at start, so a
// test run never meets another run or a server on the same machine.

// The ports of this test process, picked by TestMain.
var (
	adminPort, apiPort, guardPort, httpsPort int

	apiBase, guardBase, adminBase string

	// realHome is the HOME the test process was started with.
	realHome string
)

func TestMain(m *testing.M) {
	realHome = os.Getenv("HOME")
	home, err := os.MkdirTemp("", "aa-caddymodule-home-")
	if err != nil {
		panic(err)
	}
	for _, v := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"} {
		_ = os.Setenv(v, home)
	}
	// Caddy derives these two from the environment when its package is
	// initialised, before TestMain runs.
	caddy.ConfigAutosavePath = filepath.Join(caddy.AppConfigDir(), "autosave.json")
	caddy.DefaultStorage = &certmagic.FileStorage{Path: caddy.AppDataDir()}
	ports := freePorts(4)
	adminPort, apiPort, guardPort, httpsPort = ports[0], ports[1], ports[2], ports[3]
	apiBase = fmt.Sprintf("http://localhost:%d", apiPort)
	guardBase = fmt.Sprintf("http://localhost:%d", guardPort)
	adminBase = fmt.Sprintf("http://localhost:%d/app_access", adminPort)
	code := storetest.Main(m)
	_ = os.RemoveAll(home)
	os.Exit(code)
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) []int {
	var ports []int
	var held []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		held = append(held, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range held {
		_ = l.Close()
	}
	return ports
}

// newTester returns a caddytest harness on this process's admin port.
func newTester(t *testing.T) *caddytest.Tester {
	return caddytest.NewTester(t).WithDefaultOverrides(caddytest.Config{AdminPort: adminPort})
}

// globalOptions are the global options every test config starts with.
func globalOptions() string {
	return fmt.Sprintf(`admin localhost:%d
	persist_config off
	http_port %d
	https_port %d
	auto_https off
	grace_period 5s`, adminPort, apiPort, httpsPort)
}

// loadError loads a Caddyfile config that must fail and returns the error.
func loadError(t *testing.T, caddyfile string) string {
	t.Helper()
	// Make sure the in-process Caddy runs, on an empty config.
	newTester(t).InitServer(fmt.Sprintf("{\n\tadmin localhost:%d\n\tpersist_config off\n}\n", adminPort), "caddyfile")
	var res *http.Response
	// The admin endpoint restarts after each load; retry while it does.
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequest("POST", fmt.Sprintf("http://localhost:%d/load", adminPort), strings.NewReader(caddyfile))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "text/caddyfile")
		if res, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		if attempt == 20 {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusOK {
		t.Fatalf("the config loaded; want an error")
	}
	return string(body)
}

// server is a running Caddy with App Access on a store of its own.
type server struct {
	t      *testing.T
	tester *caddytest.Tester
	// store holds the app_access options that choose the store.
	store string
	// logDir, when set, holds every log of the server: all.log (every
	// logger at DEBUG) and one access log per site.
	logDir string
	// throttled keeps the default throttling; other tests, whose clients
	// all come from one loopback address, raise its thresholds.
	throttled bool
	// webhooks is the app's webhooks block, if any.
	webhooks string
}

// relaxedThrottle lets one address fail as often as the functional tests do.
const relaxedThrottle = `throttle {
			account_address_free 100000
			address_free 100000
			account_free 100000
			code_free 100000
			secret_free 100000
			sign_ups_per_address 100000
		}`

// startServer loads a config with the client API on apiPort and, when
// upstream is set, the guard in front of it on guardPort.
func startServer(t *testing.T, upstream string, guardOptions string) *server {
	t.Helper()
	s := &server{t: t, tester: newTester(t), store: defaultStore(t)}
	s.tester.InitServer(s.config(upstream, guardOptions), "caddyfile")
	return s
}

// defaultStore is the embedded SQLite store in the test's temporary
// folder, what a user runs by default; or, when APP_ACCESS_TEST_MONGODB_URI
// is set, a database of its own on that server.
func defaultStore(t *testing.T) string {
	if os.Getenv(storetest.EnvURI) != "" {
		return mongoStore(t)
	}
	return fmt.Sprintf("data_dir %q", t.TempDir())
}

// mongoStore is a database of the test's own on the MongoDB-protocol test
// server (FerretDB in-process, or APP_ACCESS_TEST_MONGODB_URI).
func mongoStore(t *testing.T) string {
	return fmt.Sprintf("mongodb_uri %q\n\t\tdatabase %s", storetest.URI(t), storetest.DatabaseName(t))
}

// startMongoServer is startServer on the MongoDB-protocol test server.
func startMongoServer(t *testing.T) *server {
	t.Helper()
	s := &server{t: t, tester: newTester(t), store: mongoStore(t)}
	s.tester.InitServer(s.config("", ""), "caddyfile")
	return s
}

// startLoggedServer is startServer with every log written into logDir.
func startLoggedServer(t *testing.T, upstream, logDir string) *server {
	t.Helper()
	s := &server{t: t, tester: newTester(t), store: defaultStore(t), logDir: logDir}
	s.tester.InitServer(s.config(upstream, ""), "caddyfile")
	return s
}

func (s *server) throttleBlock() string {
	if s.throttled {
		return ""
	}
	return relaxedThrottle
}

// startThrottledServer is startServer with the default throttling.
func startThrottledServer(t *testing.T, upstream string) *server {
	t.Helper()
	s := &server{t: t, tester: newTester(t), store: defaultStore(t), throttled: true}
	s.tester.InitServer(s.config(upstream, ""), "caddyfile")
	return s
}

// logBlock is the log configuration of a site (or, for name "all", the
// global one) when the server logs into logDir.
func (s *server) logBlock(name string) string {
	if s.logDir == "" {
		return ""
	}
	level := ""
	if name == "all" {
		level = "level DEBUG"
	}
	return fmt.Sprintf("log {\n\t\toutput file %q\n\t\t%s\n\t}", filepath.Join(s.logDir, name+".log"), level)
}

func (s *server) config(upstream, guardOptions string) string {
	cfg := fmt.Sprintf(`{
	%s
	%s
	app_access {
		%s
		staleness 5s
		%s
		%s
	}
}

:%d {
	%s
	app_access_api
}
`, globalOptions(), s.logBlock("all"), s.store, s.throttleBlock(), s.webhooks, apiPort, s.logBlock("api"))
	if upstream != "" {
		cfg += fmt.Sprintf(`
:%d {
	%s
	app_access_auth {
		%s
	}
	reverse_proxy %s
}
`, guardPort, s.logBlock("guard"), guardOptions, strings.TrimPrefix(upstream, "http://"))
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
	return requestWith(t, http.DefaultClient, method, url, headers, body)
}

// clientFrom is an HTTP client whose connections come from the loopback
// address ip (any 127.x.y.z), so the server sees a distinct client.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// requestWith is request through client.
func requestWith(t *testing.T, client *http.Client, method, url string, headers map[string]string, body any) response {
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
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	checkAgainstDocument(t, req, res, raw)
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
