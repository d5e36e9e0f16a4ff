package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestSignIn_GuessesOnNewConnectionsAreThrottledAsOneAddress: without a
// ClientIP function the dashboard counts a client by its remote address,
// not by the address and port of each connection (a guesser opening a
// new connection per guess would get a fresh per-address and per-pair
// allowance each time, leaving only the account-wide counter).
func TestSignIn_GuessesOnNewConnectionsAreThrottledAsOneAddress(t *testing.T) {
	e := newEnv(t)
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"username": {adminName}, "password": {"wrong password!"}}.Encode()
	var statuses []int
	for range 12 {
		req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/admin/signin", strings.NewReader(form))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
	}
	if last := statuses[len(statuses)-1]; last != http.StatusTooManyRequests {
		t.Fatalf("12 wrong passwords, each on a new connection: statuses %v, want the last 429", statuses)
	}
}
