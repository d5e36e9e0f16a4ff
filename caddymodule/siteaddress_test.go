package caddymodule

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/appaccess/appaccess/accessapi/storetest"
)

// topLevelCaddyfile is the repository's quick-start Caddyfile.
func topLevelCaddyfile(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTopLevelCaddyfile_ListenIsPlainHTTP: APP_ACCESS_LISTEN as a user
// types it, host:port or :port, serves the client API over plain HTTP there.
func TestTopLevelCaddyfile_ListenIsPlainHTTP(t *testing.T) {
	for _, tc := range []struct{ name, listen, url string }{
		{"host:port", fmt.Sprintf("127.0.0.1:%d", apiPort), fmt.Sprintf("http://127.0.0.1:%d/openapi.json", apiPort)},
		{":port", fmt.Sprintf(":%d", apiPort), fmt.Sprintf("http://localhost:%d/openapi.json", apiPort)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("APP_ACCESS_LISTEN", tc.listen)
			t.Setenv("APP_ACCESS_ADMIN", fmt.Sprintf("localhost:%d", adminPort))
			t.Setenv("APP_ACCESS_DATA", t.TempDir())
			t.Setenv("APP_ACCESS_MONGODB_URI", storetest.URI(t))
			newTester(t).InitServer(topLevelCaddyfile(t), "caddyfile")
			r := request(t, "GET", tc.url, nil, nil)
			expect(t, r, 200, "")
			if r.str("openapi") != "3.1.0" {
				t.Fatalf("answer %s", r.raw)
			}
		})
	}
}

// TestTopLevelCaddyfile_DomainIsHTTPS: APP_ACCESS_DOMAIN, a domain name,
// is served over HTTPS on port 443 with automatic certificates, beside the
// plain-HTTP listen address.
func TestTopLevelCaddyfile_DomainIsHTTPS(t *testing.T) {
	t.Setenv("APP_ACCESS_DOMAIN", "api.example.com")
	t.Setenv("APP_ACCESS_LISTEN", "127.0.0.1:8080")
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(topLevelCaddyfile(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Listen []string `json:"listen"`
					Routes []struct {
						Match []struct {
							Host []string `json:"host"`
						} `json:"match"`
					} `json:"routes"`
					AutomaticHTTPS *struct {
						Disable bool     `json:"disable"`
						Skip    []string `json:"skip"`
					} `json:"automatic_https"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	var https, plain bool
	for _, s := range cfg.Apps.HTTP.Servers {
		if s.AutomaticHTTPS != nil && s.AutomaticHTTPS.Disable {
			t.Errorf("automatic HTTPS is disabled: %s", out)
		}
		host := s.Routes[0].Match[0].Host
		switch {
		case slices.Contains(s.Listen, "0.0.0.0:443") && slices.Equal(host, []string{"api.example.com"}):
			https = true
		case slices.Contains(s.Listen, "0.0.0.0:8080") && slices.Equal(host, []string{"127.0.0.1"}) &&
			s.AutomaticHTTPS != nil && slices.Contains(s.AutomaticHTTPS.Skip, "127.0.0.1"):
			plain = true
		}
	}
	if !https || !plain {
		t.Fatalf("want api.example.com on :443 (HTTPS) and 127.0.0.1 on :8080 (HTTP); got %s", out)
	}
}
