package caddymodule

import (
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// TestReload_LeavesNoGoroutineBehind reloads a config with the embedded
// store and a webhook endpoint several times, serving requests in between:
// the background loops of every config (change feed, journal sweeper and
// clearer, webhook deliverer, throttle and cache sweepers) stop with it,
// so the process ends with the goroutines it had after the first load.
func TestReload_LeavesNoGoroutineBehind(t *testing.T) {
	dir := t.TempDir()
	cfg := embeddedConfig(dir)
	layouts := []string{cfg, strings.Replace(cfg, "app_access_api", "route {\n\t\tapp_access_api\n\t}", 1)}
	tester := newTester(t)
	tester.InitServer(cfg, "caddyfile")
	a := createApp(t, nil)
	url := "https://example.com/hook"
	expect(t, request(t, "POST", adminBase+"/apps/"+a.id+"/webhooks", nil, map[string]any{"url": url, "events": []string{"user.banned"}}), 201, "")
	serve := func() {
		expect(t, request(t, "GET", apiBase+"/app_context", a.headers(), nil), 401, "authentication_required")
		expect(t, request(t, "GET", adminBase+"/apps/"+a.id, nil, nil), 200, "")
		http.DefaultClient.CloseIdleConnections()
	}
	// The first reload starts what a reload starts; then the count holds.
	tester.InitServer(layouts[1], "caddyfile")
	serve()
	base := settledGoroutines(0, 2*time.Second)
	const reloads = 6
	for i := range reloads {
		tester.InitServer(layouts[i%2], "caddyfile")
		serve()
	}
	if n := settledGoroutines(base+2, 10*time.Second); n > base+2 {
		var b strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Fatalf("%d goroutines after %d reloads, %d before: a reload leaks\n%s", n, reloads, base, b.String())
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}

// settledGoroutines waits up to d for the goroutine count to fall to at
// most want (0: until it stops changing) and returns it.
func settledGoroutines(want int, d time.Duration) int {
	end := time.Now().Add(d)
	last := runtime.NumGoroutine()
	for time.Now().Before(end) {
		time.Sleep(100 * time.Millisecond)
		n := runtime.NumGoroutine()
		if (want > 0 && n <= want) || (want == 0 && n == last) {
			return n
		}
		last = n
	}
	return last
}
