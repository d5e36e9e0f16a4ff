// Command bench is App Access's load benchmark. It builds ./cmd/caddy,
// starts it on the embedded store with a seeded data set, drives each path
// with a closed-loop load generator for a fixed time, and prints one table
// with each path's ratio to a baseline measured in the same run on the same
// server: a `respond` route with a body of the same size (client API paths)
// and a plain `reverse_proxy` to the same upstream (the guard).
//
//	go run ./bench                 # the full run documented in docs/performance.md
//	go run ./bench -smoke          # a few seconds per path, small data, no targets (CI)
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/argon2"
)

type options struct {
	duration    time.Duration
	conns       int
	users       int
	licenses    int
	smoke, keep bool
	profile     string
	// focus, when "token", runs only the warm token path against respond,
	// alternated: the quick loop for work on that path's cost.
	focus string
}

func main() {
	var o options
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long each path is driven")
	flag.IntVar(&o.conns, "connections", 64, "concurrent connections of the load generator")
	flag.IntVar(&o.users, "users", 100_000, "users (each with a session) in the large data set")
	flag.IntVar(&o.licenses, "licenses", 1_000_000, "licenses in the large data set")
	flag.BoolVar(&o.smoke, "smoke", false, "short run on small data, without targets (for CI)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary folder (server log, data)")
	flag.StringVar(&o.profile, "profile", "", "write the server's CPU profiles of the token, login and cold token paths (token.pprof, login.pprof, cold.pprof) and its heap with 100,000 cached sessions (spread-heap.pprof) to this folder")
	flag.StringVar(&o.focus, "focus", "", `"token": seed small data and alternate respond and the warm token path 4 times (with -profile: the server's respond-N.pprof and token-N.pprof of each run, and the generator's generator-*.pprof)`)
	flag.Parse()
	if o.focus != "" && o.focus != "token" {
		fmt.Fprintln(os.Stderr, "bench: -focus takes only \"token\"")
		os.Exit(2)
	}
	if o.smoke {
		o.duration = 2 * time.Second
	}
	if o.smoke || o.focus != "" {
		o.users, o.licenses = 50, 1000
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// ports of the server under test.
type ports struct{ admin, api, upstream, proxy, guard int }

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func caddyfile(dir string, p ports, respondBytes int) string {
	return fmt.Sprintf(`{
	admin localhost:%d
	auto_https off
	app_access {
		data_dir %s
		# Every connection may wait for a hash: the login row measures
		# argon2id throughput, not the 503 of a full queue.
		hash_queue 1024
		# The load comes from one address: throttling, which is for
		# attackers, is raised out of its way.
		throttle {
			account_address_free 1000000000
			address_free 1000000000
			account_free 1000000000
			code_free 1000000000
			secret_free 1000000000
			sign_ups_per_address 1000000000
		}
	}
}

:%d {
	handle /bench/respond {
		respond "%s" 200
	}
	app_access_api
}

:%d {
	respond "upstream ok" 200
}

:%d {
	reverse_proxy localhost:%d
}

:%d {
	app_access_auth
	reverse_proxy localhost:%d
}
`, p.admin, filepath.Join(dir, "data"), p.api, strings.Repeat("x", respondBytes), p.upstream, p.proxy, p.upstream, p.guard, p.upstream)
}

// row is one line of the table.
type row struct {
	path     string
	res      result
	baseline float64
	target   string
	minRatio float64
	// bound, when set, is the row's target as a check of its result.
	bound func(result) bool
	note  string
}

func run(o options) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "app-access-bench-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(dir)
	} else {
		fmt.Println("working folder:", dir)
	}
	bin := filepath.Join(dir, "caddy")
	fmt.Println("building ./cmd/caddy ...")
	build := exec.Command("go", "build", "-o", bin, "./cmd/caddy")
	build.Dir, build.Stdout, build.Stderr = root, os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building: %w", err)
	}

	p := ports{freePort(), freePort(), freePort(), freePort(), freePort()}
	cfgPath := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cfgPath, []byte(caddyfile(dir, p, 10)), 0o600); err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(dir, "caddy.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	// start runs the server on cfgPath; the cold token row restarts it.
	var srv *exec.Cmd
	start := func() error {
		srv = exec.Command(bin, "run", "--config", cfgPath)
		srv.Stdout, srv.Stderr = logf, logf
		srv.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
		return srv.Start()
	}
	if err := start(); err != nil {
		return err
	}
	defer func() { _ = srv.Process.Kill(); _, _ = srv.Process.Wait() }()
	c := &client{admin: fmt.Sprintf("http://localhost:%d/app_access", p.admin), api: fmt.Sprintf("http://localhost:%d", p.api)}
	if err := c.waitHealthy(30 * time.Second); err != nil {
		return err
	}
	binInfo, err := os.Stat(bin)
	if err != nil {
		return err
	}

	fmt.Println("seeding the base data set ...")
	seed, err := c.seedBase(o)
	if err != nil {
		return err
	}
	// Reload with a respond body as large as the app_context answer.
	ctxBytes := c.appContextSize(seed)
	if err := c.load(p.admin, caddyfile(dir, p, ctxBytes)); err != nil {
		return err
	}
	// The reloaded config is the one a restart starts from.
	if err := os.WriteFile(cfgPath, []byte(caddyfile(dir, p, ctxBytes)), 0o600); err != nil {
		return err
	}
	if err := c.waitHealthy(30 * time.Second); err != nil {
		return err
	}

	api := func(path string) string { return c.api + path }
	get := func(url string, h map[string]string) newRequest {
		return func(int64) *http.Request {
			req, _ := http.NewRequest("GET", url, nil)
			for k, v := range h {
				req.Header.Set(k, v)
			}
			return req
		}
	}
	appH := func(a appCreds, kv ...string) map[string]string {
		// A fixed nonce: the server signs and echoes it like a fresh one.
		h := map[string]string{"x-api-key": a.Key, "x-api-secret": a.Secret, "X-App-Access-Nonce": "bench-nonce-0001"}
		for i := 0; i+1 < len(kv); i += 2 {
			h[kv[i]] = kv[i+1]
		}
		return h
	}
	drive := func(name string, build newRequest, want int) result {
		closedLoop(min(o.conns, 16), time.Second/4, build, wantStatus(want)) // warm caches and connections
		cpu, own := processCPU(srv.Process.Pid), processCPU(os.Getpid())
		r := closedLoop(o.conns, o.duration, build, wantStatus(want))
		if cpu > 0 {
			r.serverCPU = processCPU(srv.Process.Pid) - cpu
			r.clientCPU = processCPU(os.Getpid()) - own
		}
		fmt.Printf("  %-52s %9.0f req/s  p50 %-9v p99 %-9v errors %d  server CPU/req %v\n", name, r.rate(), r.p50.Round(time.Microsecond),
			r.p99.Round(time.Microsecond), r.errors, r.cpuPerRequest().Round(100*time.Nanosecond))
		return r
	}

	fmt.Printf("driving each path for %v with %d connections (app_context body %d bytes) ...\n", o.duration, o.conns, ctxBytes)
	tokenRequest := get(api("/app_context"), appH(seed.app, "Authorization", "Bearer "+seed.token))
	if o.focus == "token" {
		return focusToken(o, c, p, func() result { return drive("baseline: respond", get(api("/bench/respond"), nil), 200) },
			func() result { return drive("app_context, Bearer token", tokenRequest, 200) })
	}
	respondBefore := drive("baseline: respond", get(api("/bench/respond"), nil), 200)
	token := profiled(o, c, p, "token", func() result {
		return drive("app_context, Bearer token", tokenRequest, 200)
	})
	legacy := drive("app_context, username/password headers", get(api("/app_context"), appH(seed.app, "x-api-username", seed.username, "x-api-password", seed.password)), 200)
	license := drive("app_context, license-code header", get(api("/app_context"), appH(seed.app, "x-api-license-code", seed.code)), 200)
	anon := drive("app_context, anonymous", get(api("/app_context"), appH(seed.anonApp)), 200)
	// The machine is shared: the baseline is measured before and after the
	// client API paths, and their mean is what the ratios use.
	respondAfter := drive("baseline: respond, again", get(api("/bench/respond"), nil), 200)
	respond := meanOf(respondBefore, respondAfter)
	proxy := drive("baseline: reverse_proxy", get(fmt.Sprintf("http://localhost:%d/", p.proxy), nil), 200)
	guard := drive("guard (app_access_auth) to the same upstream", get(fmt.Sprintf("http://localhost:%d/", p.guard), appH(seed.app, "Authorization", "Bearer "+seed.token)), 200)

	hashBefore := argon2Rate(o.duration)
	fmt.Printf("  %-52s %9.1f hashes/s\n", "baseline: raw argon2id (19 MiB, t=2, p=1)", hashBefore)
	// A login whose password must be verified: a verified pair is
	// remembered (credential_cache_ttl), so repeating one correct login
	// would not hash. A wrong password always costs exactly one argon2id
	// verification, as a first login does.
	loginBody := fmt.Sprintf(`{"credentials":{"username":%q,"password":"not the password"}}`, seed.username)
	login := profiled(o, c, p, "login", func() result {
		return drive("POST /auth/login, password verified (argon2id)", func(int64) *http.Request {
			req, _ := http.NewRequest("POST", api("/auth/login"), strings.NewReader(loginBody))
			for k, v := range appH(seed.app) {
				req.Header.Set(k, v)
			}
			return req
		}, 401)
	})
	hashAfter := argon2Rate(o.duration)
	hashRate := (hashBefore + hashAfter) / 2
	fmt.Printf("  %-52s %9.1f hashes/s (mean %.1f)\n", "baseline: raw argon2id, again", hashAfter, hashRate)
	var codeIndex atomic.Int64 // shared by the warm-up and the run: each code is used once
	signup := drive("POST /sign_up_with_license_code", func(int64) *http.Request {
		code := "unavailable"
		if i := int(codeIndex.Add(1)); i <= len(seed.signupCodes) {
			code = seed.signupCodes[i-1]
		}
		req, _ := http.NewRequest("POST", api("/sign_up_with_license_code"), strings.NewReader(`{"code":"`+code+`"}`))
		for k, v := range appH(seed.app) {
			req.Header.Set(k, v)
		}
		return req
	}, 201)

	// Open loop at half the token path's peak: the latency a client sees
	// below saturation, next to respond's at the same rate on this machine.
	halfRate := token.rate() / 2
	halfRespond := openLoop(halfRate, o.conns, o.duration, get(api("/bench/respond"), nil), 200)
	half := openLoop(halfRate, o.conns, o.duration, get(api("/app_context"), appH(seed.app, "Authorization", "Bearer "+seed.token)), 200)
	for _, h := range []struct {
		name string
		r    result
	}{{"baseline: respond at the same rate", halfRespond}, {"app_context, Bearer token, at half its peak rate", half}} {
		fmt.Printf("  %-52s %9.0f req/s  p50 %-9v p99 %-9v dropped %d\n", h.name, h.r.rate(), h.r.p50.Round(time.Microsecond), h.r.p99.Round(time.Microsecond), h.r.errors)
	}

	fmt.Printf("seeding the large data set: %d users with a session each, %d licenses ...\n", o.users, o.licenses)
	set, err := c.seedLarge(seed, o)
	if err != nil {
		return err
	}
	fmt.Printf("  seeded: licenses in %v, users in %v\n", set.licenseTime.Round(time.Second), set.usersTime.Round(time.Second))
	large := drive("app_context, Bearer token, large data set", get(api("/app_context"), appH(seed.app, "Authorization", "Bearer "+seed.token)), 200)

	// Every management page over the large data set, 4 connections.
	users, err := c.sampleUsers(seed.app)
	if err != nil {
		return err
	}
	var pageRows []row
	pageTime := min(o.duration, 5*time.Second)
	if o.smoke {
		pageTime = time.Second
	}
	for _, mp := range c.managementPages(seed.app, users, set.codes) {
		closedLoop(2, time.Second/4, mp.build, 200)
		r := closedLoop(4, pageTime, mp.build, 200)
		fmt.Printf("  %-52s %9.0f req/s  p50 %-9v p99 %-9v errors %d\n", "page: "+mp.name, r.rate(), r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.errors)
		pageRows = append(pageRows, row{path: "management page (limit=100): " + mp.name, res: r, target: "p50 ≤ 50 ms, p99 ≤ 200 ms", bound: pageTarget})
	}
	rss := peakRSS(srv.Process.Pid)

	// The cold token path: restart, then every request is a session not
	// seen since (as long as there are sessions left).
	fmt.Println("restarting the server for the cold token path ...")
	if err := c.stop(p.admin); err != nil {
		return err
	}
	_, _ = srv.Process.Wait()
	if err := start(); err != nil {
		return err
	}
	if err := c.waitHealthy(60 * time.Second); err != nil {
		return err
	}
	var tokenIndex atomic.Int64
	cold := profiled(o, c, p, "cold", func() result {
		return drive("app_context, Bearer token, cold (sessions unseen since restart)", func(int64) *http.Request {
			tok := set.tokens[int(tokenIndex.Add(1)-1)%len(set.tokens)]
			req, _ := http.NewRequest("GET", api("/app_context"), nil)
			for k, v := range appH(seed.app, "Authorization", "Bearer "+tok) {
				req.Header.Set(k, v)
			}
			return req
		}, 200)
	})
	coldNote := ""
	if n := tokenIndex.Load(); n > int64(len(set.tokens)) {
		coldNote = fmt.Sprintf("%d requests over %d sessions: some were warm", n, len(set.tokens))
	}

	// Spread: every session cached (one pass over all of them), then each
	// request a random one. The machine is shared and respond's rate moves
	// by a fifth between runs, so the row alternates three runs of respond
	// with three of the spread path and compares their totals; then the
	// server's resident memory with all of them cached.
	fmt.Printf("  touching all %d sessions once ...\n", len(set.tokens))
	var touched atomic.Int64
	bearer := func(tok string) *http.Request {
		req, _ := http.NewRequest("GET", api("/app_context"), nil)
		for k, v := range appH(seed.app, "Authorization", "Bearer "+tok) {
			req.Header.Set(k, v)
		}
		return req
	}
	measure(16, func(int64) *http.Request {
		return bearer(set.tokens[min(int(touched.Add(1)-1), len(set.tokens)-1)])
	}, 200, func() bool { return touched.Load() < int64(len(set.tokens)) })
	var spreadRespond, spread result
	for range 3 {
		spreadRespond = sumOf(spreadRespond, drive("baseline: respond (spread phase)", get(api("/bench/respond"), nil), 200))
		spread = sumOf(spread, drive(fmt.Sprintf("app_context, Bearer, random one of %d sessions", len(set.tokens)), func(int64) *http.Request {
			return bearer(set.tokens[rand.IntN(len(set.tokens))])
		}, 200))
	}
	spreadRSS := currentRSS(srv.Process.Pid)
	// And once the server has been idle a while (the Go runtime returns
	// the heap it no longer needs in the background).
	time.Sleep(10 * time.Second)
	settledRSS := currentRSS(srv.Process.Pid)
	fmt.Printf("  RSS with all %d sessions cached: %d MiB right after the run, %d MiB 10 s later\n", len(set.tokens), spreadRSS>>20, settledRSS>>20)
	if ms, err := c.memStats(p.admin); err == nil {
		fmt.Printf("  server memory: %s\n", ms)
	}
	if o.profile != "" {
		if err := c.heapProfile(p.admin, filepath.Join(o.profile, "spread-heap.pprof")); err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
		}
	}

	rows := []row{
		{path: "`GET /app_context`, Bearer token, warm", res: token, baseline: respond.rate(), target: "≥ 0.80 × respond", minRatio: 0.80,
			note: fmt.Sprintf("server CPU/request %v (respond %v)", token.cpuPerRequest().Round(100*time.Nanosecond), respond.cpuPerRequest().Round(100*time.Nanosecond))},
		{path: "`GET /app_context`, username/password headers, warm", res: legacy, baseline: respond.rate(), target: "≥ 0.50 × respond", minRatio: 0.50},
		{path: "`GET /app_context`, license-code header, warm", res: license, baseline: respond.rate(), target: "≥ 0.50 × respond", minRatio: 0.50},
		{path: "`GET /app_context`, anonymous", res: anon, baseline: respond.rate(), target: "≥ 0.70 × respond", minRatio: 0.70},
		{path: "guarded request (`app_access_auth` → upstream)", res: guard, baseline: proxy.rate(), target: "≥ 0.70 × reverse_proxy", minRatio: 0.70},
		{path: "`POST /auth/login`, password verified", res: login, baseline: hashRate, target: "≥ 0.85 × raw argon2id", minRatio: 0.85},
		{path: "`POST /sign_up_with_license_code`", res: signup, target: "≥ 1,000 req/s, p99 < 100 ms",
			bound: func(r result) bool { return r.rate() >= 1000 && r.p99 < 100*time.Millisecond }},
		{path: "`GET /app_context`, Bearer, at half peak rate (open loop)", res: half, target: "p99 ≤ 5 ms",
			note: fmt.Sprintf("respond at the same rate: p50 %v, p99 %v", halfRespond.p50.Round(10*time.Microsecond), halfRespond.p99.Round(10*time.Microsecond))},
		{path: fmt.Sprintf("`GET /app_context`, Bearer, %d users/sessions, %d licenses", o.users, o.licenses), res: large, baseline: token.rate(), target: "≥ 0.83 × empty store (within 1.2×)", minRatio: 1 / 1.2, note: fmt.Sprintf("peak RSS %d MiB", rss>>20)},
	}
	rows = append(rows, pageRows...)
	rows = append(rows, row{path: "`GET /app_context`, Bearer token, cold (every session unseen since a restart)", res: cold,
		baseline: spreadRespond.rate(), target: "≥ 0.20 × respond (after the restart)", minRatio: 0.20, note: coldNote})
	rows = append(rows, row{path: fmt.Sprintf("`GET /app_context`, Bearer, each request a random one of %d sessions, all cached", len(set.tokens)), res: spread,
		baseline: spreadRespond.rate(), target: "≥ 0.70 × respond (3 runs of each, alternated)", minRatio: 0.70,
		note: fmt.Sprintf("RSS with them cached %d MiB, idle 10 s later %d MiB (target ≤ 200 MiB)", spreadRSS>>20, settledRSS>>20)})
	printTable(os.Stdout, o, respond, proxy, rows)
	fmt.Printf("\nbinary %.1f MB; peak RSS with the large data set %d MiB; seeding: %d licenses in %v (POSTs of 10,000, 4 at a time), %d users with a session in %v\n",
		float64(binInfo.Size())/1e6, rss>>20, o.licenses, set.licenseTime.Round(time.Second), o.users, set.usersTime.Round(time.Second))
	if !o.smoke {
		if err := reportPropagation(root); err != nil {
			fmt.Fprintln(os.Stderr, "propagation:", err)
		}
	}
	if o.smoke {
		for _, r := range rows {
			if r.res.requests == 0 {
				return fmt.Errorf("%s: no request completed", r.path)
			}
		}
		// A management page's requests all have one right answer.
		for _, r := range pageRows {
			if r.res.errors > 0 {
				return fmt.Errorf("%s: %d requests had another answer than 200", r.path, r.res.errors)
			}
		}
	}
	return nil
}

// reportPropagation runs the two-instance test (two services on one
// MongoDB-protocol store, the embedded FerretDB that CI runs) and prints
// its measured propagation of each kind of change as a table.
func reportPropagation(root string) error {
	fmt.Println("\nmeasuring propagation between two instances (go test -run TestTwoInstances ./accessapi/access/) ...")
	cmd := exec.Command("go", "test", "-run", "TestTwoInstances", "-count=1", "-v", "./accessapi/access/")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	fmt.Println("\n| Change (two instances, one store, 250 ms feed interval) | p50 | p99 | max | target |")
	fmt.Println("|---|---:|---:|---:|---|")
	line := regexp.MustCompile(`propagation of (.+?)\s+over (\d+) rounds: p50 (\S+), p99 (\S+), max (\S+)`)
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		fmt.Printf("| %s (%s rounds) | %s | %s | %s | p99 ≤ 1 s |\n", m[1], m[2], m[3], m[4], m[5])
	}
	return nil
}

// sumOf pools runs of the same path: their rate is the total over the
// total time; the percentiles are the worst run's.
func sumOf(a, b result) result {
	return result{requests: a.requests + b.requests, errors: a.errors + b.errors, duration: a.duration + b.duration,
		p50: max(a.p50, b.p50), p99: max(a.p99, b.p99), serverCPU: a.serverCPU + b.serverCPU, clientCPU: a.clientCPU + b.clientCPU}
}

// meanOf averages two runs of the same path.
func meanOf(a, b result) result {
	return result{requests: a.requests + b.requests, errors: a.errors + b.errors, duration: a.duration + b.duration,
		p50: (a.p50 + b.p50) / 2, p99: (a.p99 + b.p99) / 2, serverCPU: a.serverCPU + b.serverCPU, clientCPU: a.clientCPU + b.clientCPU}
}

func printTable(w io.Writer, o options, respond, proxy result, rows []row) {
	fmt.Fprintf(w, "\n%d s per path, %d connections, GOMAXPROCS %d on %d CPUs; baselines: respond %.0f req/s, reverse_proxy %.0f req/s\n\n",
		int(o.duration.Seconds()), o.conns, runtime.GOMAXPROCS(0), runtime.NumCPU(), respond.rate(), proxy.rate())
	fmt.Fprintln(w, "| Path | req/s | p50 | p99 | errors | ratio | target | |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|---|")
	for _, r := range rows {
		ratio, verdict := "", ""
		if r.baseline > 0 {
			x := r.res.rate() / r.baseline
			ratio = fmt.Sprintf("%.2f", x)
			if r.minRatio > 0 && !o.smoke {
				verdict = map[bool]string{true: "met", false: "**missed**"}[x >= r.minRatio]
			}
		}
		if r.bound != nil && !o.smoke {
			verdict = map[bool]string{true: "met", false: "**missed**"}[r.bound(r.res)]
		}
		if strings.HasPrefix(r.target, "p99") && !o.smoke {
			verdict = map[bool]string{true: "met", false: "**missed**"}[r.res.p99 <= 5*time.Millisecond]
		}
		if r.note != "" {
			verdict = strings.TrimSpace(verdict + " " + r.note)
		}
		fmt.Fprintf(w, "| %s | %.0f | %v | %v | %d | %s | %s | %s |\n", r.path, r.res.rate(),
			r.res.p50.Round(10*time.Microsecond), r.res.p99.Round(10*time.Microsecond), r.res.errors, ratio, r.target, verdict)
	}
}

// argon2Rate measures raw argon2id hashes per second at the login's
// parameters on all CPUs.
func argon2Rate(d time.Duration) float64 {
	var n atomic.Int64
	var wg sync.WaitGroup
	end := time.Now().Add(max(d/2, time.Second))
	start := time.Now()
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			salt := make([]byte, 16)
			for time.Now().Before(end) {
				argon2.IDKey([]byte("benchmark password"), salt, 2, 19*1024, 1, 32)
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / time.Since(start).Seconds()
}

// processCPU is the user and system CPU time a process has used (Linux:
// /proc/<pid>/stat at 100 ticks a second), 0 when unknown.
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces: the fields follow its ")".
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	var utime, stime int64
	if _, err := fmt.Sscan(f[11], &utime); err != nil {
		return 0
	}
	if _, err := fmt.Sscan(f[12], &stime); err != nil {
		return 0
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// peakRSS reads a process's peak resident set size from /proc.
func peakRSS(pid int) int64 { return procStatus(pid, "VmHWM") }

// currentRSS reads a process's resident set size from /proc.
func currentRSS(pid int) int64 { return procStatus(pid, "VmRSS") }

// procStatus reads a size in kB of /proc/PID/status, in bytes.
func procStatus(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int64
		if _, err := fmt.Sscanf(sc.Text(), field+": %d kB", &kb); err == nil {
			return kb << 10
		}
	}
	return 0
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run from inside the repository")
	}
	return filepath.Dir(mod), nil
}

// focusToken alternates respond and the warm token path four times each
// and prints their ratios (rate and server CPU per request) and their
// allocation, profiling each run when asked.
func focusToken(o options, c *client, p ports, respond, token func() result) error {
	var r, t result
	var rAlloc, tAlloc, rGC, tGC int64
	counted := func(run func() result, alloc, gcs *int64) func() result {
		return func() result {
			a0, g0 := c.memCounters(p.admin)
			res := run()
			a1, g1 := c.memCounters(p.admin)
			*alloc += a1 - a0
			*gcs += g1 - g0
			return res
		}
	}
	respond, token = counted(respond, &rAlloc, &rGC), counted(token, &tAlloc, &tGC)
	for i := range 4 {
		r = sumOf(r, profiled(o, c, p, fmt.Sprint("respond-", i), respond))
		t = sumOf(t, profiled(o, c, p, fmt.Sprint("token-", i), token))
	}
	fmt.Printf("\ntoken path: %.3f × respond by rate; server CPU/request %v vs respond %v (%.3f)\n", t.rate()/r.rate(),
		t.cpuPerRequest().Round(100*time.Nanosecond), r.cpuPerRequest().Round(100*time.Nanosecond),
		float64(r.cpuPerRequest())/float64(t.cpuPerRequest()))
	perReq := func(v int64, n int) float64 { return float64(v) / float64(max(n, 1)) }
	// The generator shares the machine: a rate ratio is (respond's server
	// and generator CPU) over (the token path's), not the servers' alone.
	fmt.Printf("load generator CPU/request: token %v vs respond %v\n", (t.clientCPU / time.Duration(max(t.requests, 1))).Round(100*time.Nanosecond),
		(r.clientCPU / time.Duration(max(r.requests, 1))).Round(100*time.Nanosecond))
	fmt.Printf("server allocation/request: token %.0f B vs respond %.0f B; collections per 10,000 requests: token %.1f vs respond %.1f\n",
		perReq(tAlloc, t.requests), perReq(rAlloc, r.requests), 1e4*perReq(tGC, t.requests), 1e4*perReq(rGC, r.requests))
	return nil
}

// profiled runs a path; with -profile, it saves the server's CPU profile
// of the run as DIR/name.pprof and the load generator's own as
// DIR/generator-name.pprof (to tell its share of a ratio).
func profiled(o options, c *client, p ports, name string, run func() result) result {
	if o.profile == "" {
		return run()
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := c.cpuProfile(p.admin, o.duration-time.Second, filepath.Join(o.profile, name+".pprof")); err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
		}
	})
	defer wg.Wait()
	if f, err := os.Create(filepath.Join(o.profile, "generator-"+name+".pprof")); err == nil {
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err == nil {
			defer pprof.StopCPUProfile()
		}
	}
	return run()
}
