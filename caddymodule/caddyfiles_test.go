package caddymodule

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

// handlersOf adapts the Caddyfile at path and returns the handlers its
// routes name, sorted.
func handlersOf(t *testing.T, path string) []string {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	adapted, _, err := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}.Adapt(body, map[string]any{"filename": path})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var cfg struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Routes []struct {
						Handle []struct {
							Handler string `json:"handler"`
						} `json:"handle"`
					} `json:"routes"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(adapted, &cfg); err != nil {
		t.Fatal(err)
	}
	var handlers []string
	for _, srv := range cfg.Apps.HTTP.Servers {
		for _, r := range srv.Routes {
			for _, h := range r.Handle {
				handlers = append(handlers, h.Handler)
			}
		}
	}
	slices.Sort(handlers)
	return slices.Compact(handlers)
}

func TestDockerCaddyfile_ServesWhatTheTopLevelCaddyfileServes(t *testing.T) {
	isolate(t)
	// The compose instances run docker/app-access.Caddyfile, "the
	// top-level Caddyfile plus trust in the load balancer": the same
	// handlers, the dashboard and seller API included.
	top, docker := handlersOf(t, "../Caddyfile"), handlersOf(t, "../docker/app-access.Caddyfile")
	if !slices.Equal(top, docker) {
		t.Fatalf("docker/app-access.Caddyfile serves %v, the top-level Caddyfile %v", docker, top)
	}
}
