package caddymodule

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// echoUpstream answers with the request headers it got, and counts calls.
func echoUpstream(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(r.Header)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func upstreamSaw(t *testing.T, r response) http.Header {
	t.Helper()
	var h http.Header
	if err := json.Unmarshal(r.raw, &h); err != nil {
		t.Fatalf("upstream answer %s: %v", r.raw, err)
	}
	return h
}

func TestGuard_PassesSignedInUsersWithTheirIdentity(t *testing.T) {
	up, calls := echoUpstream(t)
	startServer(t, up.URL, "")
	a := createApp(t, map[string]any{"device_auth": true})
	r := request(t, "POST", apiBase+"/sign_up", a.headers(), map[string]any{"username": "olga", "password": "vortex-lamp-71", "hardware_id": "hw-1"})
	expect(t, r, 201, "")
	userID := r.str("id")
	code := issueCode(t, a, map[string]any{"minutes": 60})
	expect(t, request(t, "POST", apiBase+"/activate_license", a.headers(), map[string]any{"code": code, "username": "olga", "password": "vortex-lamp-71"}), 201, "")
	token := login(t, a, map[string]any{"username": "olga", "password": "vortex-lamp-71"}, "hw-1").str("session_token")
	lcode := issueCode(t, a, map[string]any{"grants_lifetime_access": true})
	lr := request(t, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": lcode, "hardware_id": "hw-2"})
	expect(t, lr, 201, "")

	spoofed := []string{"X-App-Access-User-Id", "spoof", "X-App-Access-Username", "spoof", "X-App-Access-App-Id", "spoof", "X-App-Access-Membership-Expires-At", "spoof"}
	for _, tt := range []struct {
		name     string
		headers  map[string]string
		userID   string
		username string
		expires  string
	}{
		{"bearer token", a.headers(append(spoofed, "Authorization", "Bearer "+token)...), userID, "olga", "Z"},
		{"username and password", a.headers(append(spoofed, "x-api-username", "olga", "x-api-password", "vortex-lamp-71", "x-hardware-id", "hw-1")...), userID, "olga", "Z"},
		{"license code", a.headers(append(spoofed, "x-api-license-code", lcode, "x-hardware-id", "hw-2")...), lr.str("id"), lr.str("username"), "lifetime"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := request(t, "GET", guardBase+"/some/path", tt.headers, nil)
			expect(t, r, 200, "")
			h := upstreamSaw(t, r)
			if h.Get("X-App-Access-User-Id") != tt.userID || h.Get("X-App-Access-Username") != tt.username || h.Get("X-App-Access-App-Id") != a.id {
				t.Fatalf("identity headers %v", h)
			}
			if exp := h.Get("X-App-Access-Membership-Expires-At"); !strings.HasSuffix(exp, tt.expires) {
				t.Fatalf("membership expiry header %q", exp)
			}
			if len(h.Values("X-App-Access-User-Id")) != 1 {
				t.Fatalf("spoofed identity reached the upstream: %v", h.Values("X-App-Access-User-Id"))
			}
			for _, secret := range []string{"X-Api-Secret", "X-Api-Password", "X-Api-License-Code", "Authorization"} {
				if h.Get(secret) != "" {
					t.Fatalf("upstream saw %s", secret)
				}
			}
		})
	}
	if calls.Load() != 3 {
		t.Fatalf("upstream called %d times, want 3", calls.Load())
	}
}

func TestGuard_RefusesWithoutCallingTheUpstream(t *testing.T) {
	up, calls := echoUpstream(t)
	startServer(t, up.URL, "")
	a := createApp(t, map[string]any{"anonymous_access": true})
	signUp(t, a, "pat", "vortex-lamp-71")
	bannedID := activeUser(t, a, "quinn", "vortex-lamp-71")
	expect(t, request(t, "POST", adminBase+"/apps/"+a.id+"/users/"+bannedID+"/ban", nil, nil), 204, "")
	for _, tt := range []struct {
		name    string
		headers map[string]string
		status  int
		code    string
	}{
		{"no application", map[string]string{}, 401, "invalid_application"},
		{"wrong secret", map[string]string{"x-api-key": a.key, "x-api-secret": "as_x"}, 401, "invalid_application"},
		{"no user (guard does not follow anonymous access by default)", a.headers(), 401, "authentication_required"},
		{"wrong password", a.headers("x-api-username", "pat", "x-api-password", "wrong-one"), 401, "invalid_credentials"},
		{"bad token", a.headers("Authorization", "Bearer st_bad"), 401, "invalid_credentials"},
		{"inactive membership", a.headers("x-api-username", "pat", "x-api-password", "vortex-lamp-71"), 403, "membership_inactive"},
		{"banned user", a.headers("x-api-username", "quinn", "x-api-password", "vortex-lamp-71"), 403, "user_banned"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, request(t, "GET", guardBase+"/", tt.headers, nil), tt.status, tt.code)
		})
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("upstream called %d times", n)
	}
}

func TestGuard_OptionsRelaxMembershipAndAllowAnonymous(t *testing.T) {
	up, _ := echoUpstream(t)
	startServer(t, up.URL, "require_active_membership off\n\t\tallow_anonymous app\n\t\theader_user_id X-User")
	a := createApp(t, map[string]any{"anonymous_access": true})
	id := signUp(t, a, "rae", "vortex-lamp-71")
	r := request(t, "GET", guardBase+"/", a.headers("x-api-username", "rae", "x-api-password", "vortex-lamp-71", "X-App-Access-User-Id", "spoof"), nil)
	expect(t, r, 200, "")
	h := upstreamSaw(t, r)
	if h.Get("X-User") != id || h.Get("X-App-Access-User-Id") != "" {
		t.Fatalf("headers %v", h)
	}
	r = request(t, "GET", guardBase+"/", a.headers("X-User", "spoof"), nil)
	expect(t, r, 200, "")
	if h := upstreamSaw(t, r); h.Get("X-User") != "" {
		t.Fatalf("anonymous request carried identity %v", h)
	}
}

// TestGuard_AClientCannotDropOrForgeTheIdentityTheUpstreamReads: a client
// that names the identity headers in Connection (so that a proxy would drop
// them as hop-by-hop after the guard set them) or sends x-api-username
// beside a Bearer token still leaves the upstream with the guard's
// identity and no client-written username.
func TestGuard_AClientCannotDropOrForgeTheIdentityTheUpstreamReads(t *testing.T) {
	up, _ := echoUpstream(t)
	startServer(t, up.URL, "")
	a := createApp(t, map[string]any{})
	userID := activeUser(t, a, "olga", "vortex-lamp-71")
	token := login(t, a, map[string]any{"username": "olga", "password": "vortex-lamp-71"}, "").str("session_token")
	// A raw request: a client library would tidy the Connection header.
	raw := "GET /x HTTP/1.1\r\nHost: localhost\r\n" +
		"x-api-key: " + a.key + "\r\nx-api-secret: " + a.secret + "\r\n" +
		"Authorization: Bearer " + token + "\r\n" +
		"X-Api-Username: admin\r\n" +
		"Connection: close, X-App-Access-User-Id, x-app-access-membership-expires-at, X-App-Access-Username\r\n\r\n"
	var h http.Header
	if status := rawGuardRequest(t, raw, &h); status != http.StatusOK {
		t.Fatalf("guard answered %d", status)
	}
	if h.Get("X-App-Access-User-Id") != userID || h.Get("X-App-Access-Username") != "olga" || h.Get("X-App-Access-Membership-Expires-At") == "" {
		t.Fatalf("the upstream saw identity %q %q %q, want the guard's", h.Get("X-App-Access-User-Id"), h.Get("X-App-Access-Username"),
			h.Get("X-App-Access-Membership-Expires-At"))
	}
	if got := h.Get("X-Api-Username"); got != "" {
		t.Fatalf("the upstream saw the client's x-api-username %q", got)
	}
}

// bodyAndTrailerUpstream answers with the request headers and, read after
// the body, the trailers it got.
func bodyAndTrailerUpstream(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]http.Header{"header": r.Header, "trailer": r.Trailer})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// rawGuardRequest sends raw HTTP/1.1 to the guard and, when the upstream
// answered, decodes what it saw into saw.
func rawGuardRequest(t *testing.T, raw string, saw any) int {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(guardBase, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusOK {
		if err := json.NewDecoder(res.Body).Decode(saw); err != nil {
			t.Fatal(err)
		}
	}
	return res.StatusCode
}

// TestGuard_NoTrailerAndNoSpellingOfABearerTokenReachesTheUpstream: trailer
// fields after a chunked body (a forged identity, a password) are not
// passed on, and a Bearer token in a second Authorization header or after
// a tab is taken as the credential and removed, while another scheme's
// header passes.
func TestGuard_NoTrailerAndNoSpellingOfABearerTokenReachesTheUpstream(t *testing.T) {
	up := bodyAndTrailerUpstream(t)
	startServer(t, up.URL, "")
	a := createApp(t, map[string]any{})
	aliceID := activeUser(t, a, "alice", "vortex-lamp-71")
	token := login(t, a, map[string]any{"username": "alice", "password": "vortex-lamp-71"}, "").str("session_token")
	creds := "x-api-key: " + a.key + "\r\nx-api-secret: " + a.secret + "\r\n"

	var saw map[string]http.Header
	status := rawGuardRequest(t, "POST /x HTTP/1.1\r\nHost: localhost\r\n"+creds+
		"Authorization: Bearer "+token+"\r\nTransfer-Encoding: chunked\r\nTrailer: X-App-Access-User-Id, x-api-password\r\nConnection: close\r\n\r\n"+
		"4\r\nbody\r\n0\r\nX-App-Access-User-Id: evil\r\nx-api-password: pw-in-trailer\r\nX-App-Access-Username: root\r\n\r\n", &saw)
	if status != http.StatusOK || saw["header"].Get("X-App-Access-User-Id") != aliceID {
		t.Fatalf("trailers: %d, upstream saw %v", status, saw)
	}
	if len(saw["trailer"]) > 0 || saw["header"].Get("Trailer") != "" {
		t.Errorf("the upstream got trailers %v (declared %q)", saw["trailer"], saw["header"].Get("Trailer"))
	}

	for name, authz := range map[string]string{
		"a second Authorization header": "Authorization: Basic dXBzdHJlYW06cGFzcw==\r\nAuthorization: Bearer " + token + "\r\n",
		"a tab after the scheme":        "Authorization: Bearer\t" + token + "\r\n",
	} {
		var saw map[string]http.Header
		status := rawGuardRequest(t, "GET /x HTTP/1.1\r\nHost: localhost\r\n"+creds+authz+"Connection: close\r\n\r\n", &saw)
		if status != http.StatusOK || saw["header"].Get("X-App-Access-User-Id") != aliceID {
			t.Fatalf("%s: %d, identity %q, want alice's", name, status, saw["header"].Get("X-App-Access-User-Id"))
		}
		for _, v := range saw["header"].Values("Authorization") {
			if strings.Contains(v, token) {
				t.Errorf("%s: the upstream got the session token", name)
			}
		}
		if name == "a second Authorization header" && saw["header"].Get("Authorization") != "Basic dXBzdHJlYW06cGFzcw==" {
			t.Errorf("%s: the upstream's own Basic header did not pass: %q", name, saw["header"].Values("Authorization"))
		}
	}
}

// TestGuard_TheDashboardSessionCookieNeverReachesTheUpstream: a browser
// sends an administrator's dashboard session to every path of a host that
// serves the dashboard too; the guard removes it (either spelling, in any
// of the Cookie fields), and the upstream's own cookies pass as sent.
func TestGuard_TheDashboardSessionCookieNeverReachesTheUpstream(t *testing.T) {
	up := bodyAndTrailerUpstream(t)
	startServer(t, up.URL, "")
	a := createApp(t, map[string]any{})
	activeUser(t, a, "alice", "vortex-lamp-71")
	token := login(t, a, map[string]any{"username": "alice", "password": "vortex-lamp-71"}, "").str("session_token")
	creds := "x-api-key: " + a.key + "\r\nx-api-secret: " + a.secret + "\r\nAuthorization: Bearer " + token + "\r\n"
	for name, tc := range map[string]struct{ cookies, want string }{
		"the secure name among others": {"Cookie: theme=dark; __Host-aa_dash=admin-session; cart=3\r\n", "theme=dark; cart=3"},
		"the plain name alone":         {"Cookie: aa_dash=admin-session\r\n", ""},
		"in a second Cookie field":     {"Cookie: theme=dark\r\nCookie: aa_dash=admin-session;cart=3\r\n", "theme=dark|cart=3"},
		"none of ours":                 {"Cookie: theme=dark;cart=3\r\n", "theme=dark;cart=3"},
	} {
		var saw map[string]http.Header
		status := rawGuardRequest(t, "GET /x HTTP/1.1\r\nHost: localhost\r\n"+creds+tc.cookies+"Connection: close\r\n\r\n", &saw)
		if status != http.StatusOK {
			t.Fatalf("%s: status %d", name, status)
		}
		got := strings.Join(saw["header"].Values("Cookie"), "|")
		if strings.Contains(got, "admin-session") || got != tc.want {
			t.Errorf("%s: the upstream got Cookie %q, want %q", name, got, tc.want)
		}
	}
}
