package dashboard_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestHSTS_SentOverTLSOnlyOnEveryKindOfAnswer: pages, redirects, the
// sign-in form's answer and the API's problems carry
// Strict-Transport-Security (a year, this host only) when served over TLS,
// and never over plain HTTP (localhost development).
func TestHSTS_SentOverTLSOnlyOnEveryKindOfAnswer(t *testing.T) {
	e := newEnv(t)
	tlsSrv := httptest.NewTLSServer(e.srv.Config.Handler)
	defer tlsSrv.Close()
	for _, tc := range []struct {
		name   string
		url    string
		host   string // the Host header; "" for the URL's
		client *http.Client
		want   string
	}{
		{"over TLS", tlsSrv.URL, "dashboard.example", tlsSrv.Client(), "max-age=31536000"},
		{"over TLS, a name with a port", tlsSrv.URL, "Dashboard.Example:8443", tlsSrv.Client(), "max-age=31536000"},
		{"over plain HTTP", e.srv.URL, "dashboard.example", http.DefaultClient, ""},
		// Development hosts: a policy kept for localhost would hold every
		// local port for a year; browsers keep none for IP addresses.
		{"over TLS to localhost", tlsSrv.URL, "localhost:8443", tlsSrv.Client(), ""},
		{"over TLS to a name under localhost", tlsSrv.URL, "admin.localhost", tlsSrv.Client(), ""},
		{"over TLS to an IPv4 address", tlsSrv.URL, "", tlsSrv.Client(), ""},
		{"over TLS to an IPv6 address", tlsSrv.URL, "[::1]:8443", tlsSrv.Client(), ""},
	} {
		c := *tc.client
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		form := url.Values{"username": {adminName}, "password": {"wrong password!"}}
		signIn, _ := http.NewRequest(http.MethodPost, tc.url+"/admin/signin", strings.NewReader(form.Encode()))
		signIn.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		signIn.Header.Set("Sec-Fetch-Site", "same-origin")
		signIn.Header.Set("Origin", tc.url)
		if tc.host != "" {
			signIn.Header.Set("Origin", "https://"+tc.host)
		}
		for _, req := range []*http.Request{
			mustRequest(t, http.MethodGet, tc.url+"/admin/signin"),       // a page
			mustRequest(t, http.MethodGet, tc.url+"/admin/"),             // a redirect to sign-in
			mustRequest(t, http.MethodGet, tc.url+"/admin/api/apps"),     // a problem
			mustRequest(t, http.MethodGet, tc.url+"/admin/no/such/page"), // an error page
			signIn, // a refused sign-in
		} {
			if tc.host != "" {
				req.Host = tc.host
			}
			res, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if got := res.Header.Get("Strict-Transport-Security"); got != tc.want {
				t.Errorf("%s, %s %s (%d): Strict-Transport-Security %q, want %q", tc.name, req.Method, req.URL.Path, res.StatusCode, got, tc.want)
			}
		}
	}
}

func mustRequest(t *testing.T, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
