package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// issueBulk issues count licenses of one application in POSTs of 10,000,
// workers at a time, discarding the codes.
func (c *client) issueBulk(a appCreds, count, workers int, body map[string]any) error {
	batches := make(chan int)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		done  atomic.Int64
	)
	for range workers {
		wg.Go(func() {
			b := map[string]any{}
			for k, v := range body {
				b[k] = v
			}
			for n := range batches {
				b["count"] = n
				j, _ := json.Marshal(b)
				res, err := http.Post(c.admin+"/apps/"+a.ID+"/licenses", "application/json", strings.NewReader(string(j)))
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					_ = res.Body.Close()
					if res.StatusCode != 201 {
						err = fmt.Errorf("issuing licenses: %d", res.StatusCode)
					}
				}
				if err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
					continue
				}
				if d := done.Add(int64(n)); d%100_000 < int64(n) {
					fmt.Printf("  %d licenses\n", d)
				}
			}
		})
	}
	for count > 0 {
		n := min(count, 10000)
		batches <- n
		count -= n
	}
	close(batches)
	wg.Wait()
	return first
}

// randomID is a random UUID-shaped string: a cursor that falls anywhere
// among the licenses.
func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// userSample is some users of the large data set: the management rows'
// prefixes, cursors and detail pages.
type userSample struct {
	ids, names []string
}

func (c *client) sampleUsers(a appCreds) (*userSample, error) {
	var page struct {
		Items []struct {
			ID       string `json:"id"`
			Username string `json:"username"`
		} `json:"users"`
	}
	if err := c.do("GET", c.admin+"/apps/"+a.ID+"/users?limit=1000", nil, nil, 200, &page); err != nil {
		return nil, err
	}
	s := &userSample{}
	for _, u := range page.Items {
		s.ids, s.names = append(s.ids, u.ID), append(s.names, u.Username)
	}
	if len(s.ids) == 0 {
		return nil, fmt.Errorf("no users to sample")
	}
	return s, nil
}

// managementPage is one management listing driven by the bench.
type managementPage struct {
	name  string
	build newRequest
}

// managementPages are the listings of issue 10, each a page of 100.
func (c *client) managementPages(a appCreds, users *userSample, codes []string) []managementPage {
	base := c.admin + "/apps/" + a.ID
	get := func(url func(i int64) string) newRequest {
		return func(i int64) *http.Request {
			req, _ := http.NewRequest("GET", url(i), nil)
			return req
		}
	}
	pick := func(xs []string, i int64) string { return xs[int(i)%len(xs)] }
	return []managementPage{
		{"licenses, all", get(func(int64) string { return base + "/licenses?limit=100&after=" + randomID() })},
		{"licenses, used", get(func(int64) string { return base + "/licenses?used=true&limit=100&after=" + randomID() })},
		{"licenses, unused", get(func(int64) string { return base + "/licenses?used=false&limit=100&after=" + randomID() })},
		{"license by code", func(i int64) *http.Request {
			req, _ := http.NewRequest("POST", base+"/licenses/lookup", strings.NewReader(`{"code":"`+pick(codes, i)+`"}`))
			req.Header.Set("Content-Type", "application/json")
			return req
		}},
		{"users by username prefix, after a cursor", get(func(i int64) string {
			k := int(i) % len(users.ids)
			prefix := users.names[k][:min(len(users.names[k]), 6)]
			return base + "/users?limit=100&username=" + prefix + "&after=" + users.ids[k]
		})},
		{"users, all, after a cursor", get(func(i int64) string { return base + "/users?limit=100&after=" + pick(users.ids, i) })},
		{"a user's activations (user detail)", get(func(i int64) string { return base + "/users/" + pick(users.ids, i) })},
		{"application with its counts", get(func(int64) string { return base })},
	}
}

// pageTarget checks issue 10's bound of a management page.
func pageTarget(r result) bool { return r.p50 <= 50*time.Millisecond && r.p99 <= 200*time.Millisecond }
