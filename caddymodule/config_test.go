package caddymodule

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddytest"
)

// activeApp returns the running config's app_access app.
func activeApp(t *testing.T) *App {
	t.Helper()
	v, err := caddy.ActiveContext().AppIfConfigured("app_access")
	if err != nil {
		t.Fatal(err)
	}
	return v.(*App)
}

func TestReload_KeepsOneMongoDBClient(t *testing.T) {
	s := startMongoServer(t)
	a := createApp(t, nil)
	before := activeApp(t)
	key := connectionKey(before.uri, before.dataDir)
	client := before.conn.client

	// Reload the same settings with another handler layout (POST /load).
	s.tester.InitServer(strings.Replace(s.config("", ""), "app_access_api", "route {\n\t\tapp_access_api\n\t}", 1), "caddyfile")
	after := activeApp(t)
	if after == before {
		t.Fatal("the config was not reloaded")
	}
	if after.conn == nil || after.conn.client != client {
		t.Fatal("the reload opened a new MongoDB client")
	}
	if refs, ok := connections.References(key); !ok || refs != 1 {
		t.Fatalf("pool holds %d references to the connection, want 1", refs)
	}
	expect(t, request(t, "GET", adminBase+"/apps/"+a.id, nil, nil), 200, "")
}

// embeddedConfig serves the client API on the embedded store in dir.
func embeddedConfig(dir string) string {
	return fmt.Sprintf(`{
	%s
	app_access {
		data_dir "%s"
	}
}
:%d {
	app_access_api
}
`, globalOptions(), dir, apiPort)
}

func TestReload_KeepsTheEmbeddedStoreRunning(t *testing.T) {
	dir := t.TempDir()
	cfg := embeddedConfig(dir)
	tester := newTester(t)
	tester.InitServer(cfg, "caddyfile")
	first := activeApp(t).conn
	if first.embedded == nil {
		t.Fatal("no embedded store without mongodb_uri")
	}
	a := createApp(t, nil)
	tester.InitServer(strings.Replace(cfg, "app_access_api", "route {\n\t\tapp_access_api\n\t}", 1), "caddyfile")
	if activeApp(t).conn != first {
		t.Fatal("the reload restarted the embedded store")
	}
	expect(t, request(t, "GET", adminBase+"/apps/"+a.id, nil, nil), 200, "")
	if info, err := os.Stat(dir + "/file.key"); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("file key: %v %v", info, err)
	}
}

func TestConfig_BadMongoDBURIIsOneClearError(t *testing.T) {
	for _, uri := range []string{"postgres://nope", "mongodb://user:hunter2@host:notaport/"} {
		msg := loadError(t, fmt.Sprintf(`{
	%s
	app_access {
		mongodb_uri "%s"
	}
}
:%d {
	app_access_api
}`, globalOptions(), uri, apiPort))
		if !strings.Contains(msg, "mongodb_uri") || strings.Contains(msg, "hunter2") {
			t.Errorf("load error %q: want one naming mongodb_uri, without the password", msg)
		}
	}
	// The password never appears in the error.
	err := new(App)
	err.MongoDBURI = "mongodb://user:hunter2@host:notaport/"
	if perr := err.Provision(caddy.Context{}); perr == nil || strings.Contains(perr.Error(), "hunter2") || strings.Contains(perr.Error(), "\n") {
		t.Fatalf("error %q", perr)
	}
}

func TestCaddyfile_AdaptsTheDirectives(t *testing.T) {
	caddytest.AssertAdapt(t, `{
	app_access {
		mongodb_uri {env.MONGO}
		database access
		staleness 2s
		credential_cache_ttl off
		cache_entries 5000
		feed_interval 100ms
		feed_retention 30m
	}
}
:8080 {
	app_access_auth {
		require_active_membership off
		allow_anonymous app
		apps 1b4e28ba-2fa1-11d2-883f-0016d3cca427
		header_user_id X-User
		header_username -
	}
	app_access_api
}`, "caddyfile", `{
	"apps": {
		"app_access": {
			"mongodb_uri": "{env.MONGO}",
			"database": "access",
			"staleness": 2000000000,
			"credential_cache_ttl": -1,
			"cache_entries": 5000,
			"feed_interval": 100000000,
			"feed_retention": 1800000000000
		},
		"http": {
			"servers": {
				"srv0": {
					"listen": [
						":8080"
					],
					"routes": [
						{
							"handle": [
								{
									"allow_anonymous": "app",
									"apps": [
										"1b4e28ba-2fa1-11d2-883f-0016d3cca427"
									],
									"handler": "app_access_auth",
									"headers": {
										"user_id": "X-User",
										"username": "-"
									},
									"require_active_membership": false
								},
								{
									"handler": "app_access_api"
								}
							]
						}
					]
				}
			}
		}
	}
}`)
}

func TestXcaddyJSON_ListsExactlyOurModules(t *testing.T) {
	raw, err := os.ReadFile("../xcaddy.json")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Module       string `json:"module"`
		CaddyVersion string `json:"caddy_version"`
		Modules      []struct {
			ID string `json:"id"`
		} `json:"modules"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	var listed, registered []string
	for _, m := range meta.Modules {
		listed = append(listed, m.ID)
		if _, err := caddy.GetModule(m.ID); err != nil {
			t.Errorf("xcaddy.json lists %s, which is not registered", m.ID)
		}
	}
	ours := reflect.TypeOf(App{}).PkgPath()
	for _, id := range caddy.Modules() {
		info, _ := caddy.GetModule(id)
		if typ := reflect.TypeOf(info.New()); typ.Kind() == reflect.Pointer && typ.Elem().PkgPath() == ours {
			registered = append(registered, id)
		}
	}
	slices.Sort(listed)
	slices.Sort(registered)
	if !slices.Equal(listed, registered) {
		t.Fatalf("xcaddy.json lists %v, the package registers %v", listed, registered)
	}
	if meta.Module != strings.TrimSuffix(ours, "/caddymodule") {
		t.Fatalf("module %q, want %q", meta.Module, strings.TrimSuffix(ours, "/caddymodule"))
	}
	if !strings.HasPrefix(meta.CaddyVersion, "v2.") {
		t.Fatalf("caddy_version %q", meta.CaddyVersion)
	}
}

func TestHarness_LeavesTheUsersHomeAlone(t *testing.T) {
	s := startServer(t, "", "")
	createApp(t, nil)
	s.tester.InitServer(s.config("", ""), "caddyfile") // a reload, which Caddy would autosave
	// Checking the home's files would race with a real server beside the
	// test; where Caddy and App Access write is what matters.
	for _, p := range []string{caddy.ConfigAutosavePath, caddy.AppDataDir(), activeApp(t).dataDir} {
		if rel, err := filepath.Rel(realHome, p); realHome == "" || err != nil || !strings.HasPrefix(rel, "..") {
			t.Errorf("the test writes into the user's home: %s", p)
		}
	}
}
