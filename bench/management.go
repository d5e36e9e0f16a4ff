package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
	// cursors are "next" cursors of the full listing; prefixed pair a
	// username prefix with a cursor inside its listing.
	cursors  []string
	prefixed [][2]string
}

type usersPage struct {
	Items []struct {
		ID       string `json:"id"`
		Username string `json:"username"`
	} `json:"users"`
	Next *string `json:"next"`
}

// sampleUsers reads users and cursors spread over the listing: the first
// 1,000 users, the next cursors of 20 pages of 100 along the way, and for
// 200 of the users a cursor within the listing of their name's first six
// characters.
func (c *client) sampleUsers(a appCreds) (*userSample, error) {
	base := c.admin + "/apps/" + a.ID + "/users"
	var page usersPage
	if err := c.do("GET", base+"?limit=1000", nil, nil, 200, &page); err != nil {
		return nil, err
	}
	s := &userSample{}
	for _, u := range page.Items {
		s.ids, s.names = append(s.ids, u.ID), append(s.names, u.Username)
	}
	if len(s.ids) == 0 {
		return nil, fmt.Errorf("no users to sample")
	}
	after := ""
	for range 20 {
		var p usersPage
		if err := c.do("GET", base+"?limit=100&after="+url.QueryEscape(after), nil, nil, 200, &p); err != nil {
			return nil, err
		}
		if p.Next == nil {
			break
		}
		after = *p.Next
		s.cursors = append(s.cursors, after)
	}
	for i := 0; i < len(s.names) && len(s.prefixed) < 200; i += max(1, len(s.names)/200) {
		prefix := s.names[i][:min(len(s.names[i]), 6)]
		var p usersPage
		if err := c.do("GET", base+"?limit=1&prefix="+url.QueryEscape(prefix), nil, nil, 200, &p); err != nil {
			return nil, err
		}
		if p.Next != nil {
			s.prefixed = append(s.prefixed, [2]string{prefix, *p.Next})
		}
	}
	// A small data set (-smoke) may have no second page: the first then.
	if len(s.cursors) == 0 {
		s.cursors = []string{""}
	}
	if len(s.prefixed) == 0 {
		s.prefixed = [][2]string{{s.names[0][:min(len(s.names[0]), 6)], ""}}
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
			p := users.prefixed[int(i)%len(users.prefixed)]
			return base + "/users?limit=100&prefix=" + url.QueryEscape(p[0]) + "&after=" + url.QueryEscape(p[1])
		})},
		{"users, all, after a cursor", get(func(i int64) string {
			return base + "/users?limit=100&after=" + url.QueryEscape(pick(users.cursors, i))
		})},
		{"a user's activations (user detail)", get(func(i int64) string { return base + "/users/" + pick(users.ids, i) })},
		{"application with its counts", get(func(int64) string { return base })},
	}
}

// pageTarget checks issue 10's bound of a management page.
func pageTarget(r result) bool { return r.p50 <= 50*time.Millisecond && r.p99 <= 200*time.Millisecond }
