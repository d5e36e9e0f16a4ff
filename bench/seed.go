package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// client talks to the server under test to seed it.
type client struct {
	admin, api string
}

type appCreds struct {
	ID     string `json:"id"`
	Key    string `json:"api_key"`
	Secret string `json:"api_secret"`
}

// seeded is the base data set the paths use.
type seeded struct {
	app, anonApp       appCreds
	username, password string
	token, code        string
	signupCodes        []string
}

func (c *client) do(method, url string, headers map[string]string, body any, want int, out any) error {
	var rdr io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rdr = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rdr = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, rdr)
	if err != nil {
		return err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

func (c *client) waitHealthy(limit time.Duration) error {
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		if c.do("GET", c.admin+"/health", nil, nil, 200, nil) == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the server did not become healthy in %v", limit)
}

// load replaces the running config (a reload).
func (c *client) load(adminPort int, caddyfile string) error {
	req, _ := http.NewRequest("POST", fmt.Sprintf("http://localhost:%d/load", adminPort), strings.NewReader(caddyfile))
	req.Header.Set("Content-Type", "text/caddyfile")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		raw, _ := io.ReadAll(res.Body)
		return fmt.Errorf("reloading: %d %s", res.StatusCode, raw)
	}
	return nil
}

func (c *client) headers(a appCreds) map[string]string {
	return map[string]string{"x-api-key": a.Key, "x-api-secret": a.Secret}
}

func (c *client) issue(a appCreds, count int, body map[string]any) ([]string, error) {
	var codes []string
	for count > 0 {
		n := min(count, 10000)
		body["count"] = n
		var out struct {
			Licenses []struct {
				Code string `json:"code"`
			} `json:"licenses"`
		}
		if err := c.do("POST", c.admin+"/apps/"+a.ID+"/licenses", nil, body, 201, &out); err != nil {
			return nil, err
		}
		for _, l := range out.Licenses {
			codes = append(codes, l.Code)
		}
		count -= n
	}
	return codes, nil
}

func (c *client) seedBase(o options) (*seeded, error) {
	s := &seeded{username: "bench-user", password: "bench password 1"}
	for _, a := range []struct {
		dst  *appCreds
		body map[string]any
	}{{&s.app, map[string]any{"name": "bench"}}, {&s.anonApp, map[string]any{"name": "bench anonymous", "anonymous_access": true}}} {
		if err := c.do("POST", c.admin+"/apps", nil, a.body, 201, a.dst); err != nil {
			return nil, err
		}
	}
	for _, a := range []appCreds{s.app, s.anonApp} {
		if err := c.do("PUT", c.admin+"/apps/"+a.ID+"/variables/version", nil, map[string]any{"value": "1.4.2"}, 200, nil); err != nil {
			return nil, err
		}
	}
	codes, err := c.issue(s.app, 2, map[string]any{"grants_lifetime_access": true})
	if err != nil {
		return nil, err
	}
	h := c.headers(s.app)
	if err := c.do("POST", c.api+"/sign_up", h, map[string]any{"username": s.username, "password": s.password}, 201, nil); err != nil {
		return nil, err
	}
	if err := c.do("POST", c.api+"/activate_license", h, map[string]any{"code": codes[0], "username": s.username, "password": s.password}, 201, nil); err != nil {
		return nil, err
	}
	var sess struct {
		Token string `json:"session_token"`
	}
	if err := c.do("POST", c.api+"/auth/login", h, map[string]any{"credentials": map[string]any{"username": s.username, "password": s.password}}, 200, &sess); err != nil {
		return nil, err
	}
	s.token, s.code = sess.Token, codes[1]
	if err := c.do("POST", c.api+"/sign_up_with_license_code", h, map[string]any{"code": s.code}, 201, nil); err != nil {
		return nil, err
	}
	// Enough single-use codes for the license sign-up path at any rate this
	// store can reach.
	s.signupCodes, err = c.issue(s.app, max(1000, int(o.duration.Seconds()+1)*6000), map[string]any{"minutes": 60})
	return s, err
}

// appContextSize is the size of the token path's app_context answer.
func (c *client) appContextSize(s *seeded) int {
	req, _ := http.NewRequest("GET", c.api+"/app_context", nil)
	for k, v := range c.headers(s.app) {
		req.Header.Set(k, v)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 300
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return len(raw)
}

// largeSet is what seeding the large data set kept: the codes the users
// signed up with and their sessions' tokens, and how long each part took.
type largeSet struct {
	codes, tokens          []string
	licenseTime, usersTime time.Duration
}

// seedLarge adds unused licenses in bulk (POSTs of 10,000, four at a
// time) and users, each signed up with a code and logged in through the
// client API, so that each has a session.
func (c *client) seedLarge(s *seeded, o options) (*largeSet, error) {
	t0 := time.Now()
	codes, err := c.issue(s.app, o.users, map[string]any{"minutes": 600})
	if err != nil {
		return nil, err
	}
	if err := c.issueBulk(s.app, max(0, o.licenses-o.users), 4, map[string]any{"minutes": 60}); err != nil {
		return nil, err
	}
	set := &largeSet{codes: codes, tokens: make([]string, len(codes)), licenseTime: time.Since(t0)}
	t0 = time.Now()
	h := c.headers(s.app)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				code := codes[i]
				var sess struct {
					Token string `json:"session_token"`
				}
				err := c.do("POST", c.api+"/sign_up_with_license_code", h, map[string]any{"code": code}, 201, nil)
				if err == nil {
					err = c.do("POST", c.api+"/auth/login", h, map[string]any{"credentials": map[string]any{"code": code}}, 200, &sess)
				}
				set.tokens[i] = sess.Token
				if err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
				}
			}
		}()
	}
	for i := range codes {
		next <- i
		if (i+1)%10000 == 0 {
			fmt.Printf("  %d users\n", i+1)
		}
	}
	close(next)
	wg.Wait()
	set.usersTime = time.Since(t0)
	return set, first
}

// cpuProfile saves the server's CPU profile over d (Caddy's admin endpoint
// serves net/http/pprof).
func (c *client) cpuProfile(adminPort int, d time.Duration, path string) error {
	return savePprof(fmt.Sprintf("http://localhost:%d/debug/pprof/profile?seconds=%d", adminPort, max(1, int(d.Seconds()))), path)
}

// heapProfile saves the server's heap profile (live objects after a
// collection).
func (c *client) heapProfile(adminPort int, path string) error {
	return savePprof(fmt.Sprintf("http://localhost:%d/debug/pprof/heap?gc=1", adminPort), path)
}

// savePprof saves what a pprof URL answers to path.
func savePprof(url, path string) error {
	res, err := http.Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("pprof answered %d", res.StatusCode)
	}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o644)
}

// heapStats reads the server's Go memory statistics: the "# Name = value"
// lines that end /debug/pprof/heap?debug=1.
func heapStats(adminPort int) (map[string]int64, error) {
	res, err := http.Get(fmt.Sprintf("http://localhost:%d/debug/pprof/heap?debug=1", adminPort))
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	stats := map[string]int64{}
	for _, line := range strings.Split(string(raw), "\n") {
		var name string
		var v int64
		if _, err := fmt.Sscanf(line, "# %s = %d", &name, &v); err == nil {
			stats[name] = v
		}
	}
	return stats, nil
}

// memStats summarises the server's Go memory statistics in MiB.
func (c *client) memStats(adminPort int) (string, error) {
	stats, err := heapStats(adminPort)
	if err != nil {
		return "", err
	}
	var out []string
	for _, name := range []string{"HeapAlloc", "HeapInuse", "HeapIdle", "HeapReleased", "NextGC", "StackSys", "Sys"} {
		if v, ok := stats[name]; ok {
			out = append(out, fmt.Sprintf("%s %d", name, v>>20))
		}
	}
	return strings.Join(out, ", ") + " (MiB)", nil
}

// memCounters reads the server's TotalAlloc (bytes) and NumGC.
func (c *client) memCounters(adminPort int) (alloc, gcs int64) {
	stats, _ := heapStats(adminPort)
	return stats["TotalAlloc"], stats["NumGC"]
}

// stop asks the server to exit (POST /stop on the admin endpoint).
func (c *client) stop(adminPort int) error {
	return c.do("POST", fmt.Sprintf("http://localhost:%d/stop", adminPort), nil, nil, 200, nil)
}
