package caddymodule

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// The abuse suite: an attacker with the shipped application secret, from
// distinct loopback addresses, against the default throttling.

// loginFrom tries a username and password from the loopback address ip.
func loginFrom(t *testing.T, a app, ip, username, password string, extra ...string) response {
	t.Helper()
	body := map[string]any{"credentials": map[string]any{"username": username, "password": password}}
	return requestWith(t, clientFrom(ip), "POST", apiBase+"/auth/login", a.headers(extra...), body)
}

func expectThrottled(t *testing.T, r response) {
	t.Helper()
	expect(t, r, 429, "too_many_attempts")
	if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("Retry-After %q, want a positive number of seconds", r.header.Get("Retry-After"))
	}
}

func TestAbuse_GuessesAreThrottledAlikeForKnownAndUnknownUsers(t *testing.T) {
	startThrottledServer(t, "")
	a := createApp(t, nil)
	activeUser(t, a, "victim", "vortex-lamp-71")
	for i, username := range []string{"victim", "ghost-user"} {
		ip := fmt.Sprintf("127.0.0.%d", 20+i)
		for range access.DefaultThrottlePolicy.AccountAddressFree {
			expect(t, loginFrom(t, a, ip, username, "wrong-guess"), 401, "invalid_credentials")
		}
		expectThrottled(t, loginFrom(t, a, ip, username, "wrong-guess"))
		// The right password is refused the same way: no oracle.
		expectThrottled(t, loginFrom(t, a, ip, username, "vortex-lamp-71"))
	}
}

func TestAbuse_ASpoofedForwardedForChangesNothing(t *testing.T) {
	startThrottledServer(t, "")
	a := createApp(t, nil)
	for i := range access.DefaultThrottlePolicy.AccountAddressFree {
		r := loginFrom(t, a, "127.0.0.30", "someone", "wrong-guess", "X-Forwarded-For", fmt.Sprintf("10.9.8.%d", i))
		expect(t, r, 401, "invalid_credentials")
	}
	expectThrottled(t, loginFrom(t, a, "127.0.0.30", "someone", "wrong-guess", "X-Forwarded-For", "10.9.8.200"))
}

func TestAbuse_TheOwnerGetsInDuringADistributedAttack(t *testing.T) {
	startThrottledServer(t, "")
	a := createApp(t, nil)
	activeUser(t, a, "owner", "vortex-lamp-71")
	expect(t, loginFrom(t, a, "127.0.0.40", "owner", "vortex-lamp-71"), 200, "")
	for i := range 50 {
		expect(t, loginFrom(t, a, fmt.Sprintf("127.0.1.%d", i+1), "owner", "wrong-guess"), 401, "invalid_credentials")
	}
	expectThrottled(t, loginFrom(t, a, "127.0.1.100", "owner", "vortex-lamp-71"))
	expect(t, loginFrom(t, a, "127.0.0.40", "owner", "vortex-lamp-71"), 200, "")
}

func TestAbuse_CodeAndSecretGuessesAreThrottled(t *testing.T) {
	startThrottledServer(t, "")
	a := createApp(t, nil)
	code := issueCode(t, a, map[string]any{"minutes": 60})
	c := clientFrom("127.0.0.50")
	guess := func(i int) map[string]any {
		return map[string]any{"code": fmt.Sprintf("GUESS-%05d-AAAAA-BBBBB-CCCCC", i)}
	}
	for i := range access.DefaultThrottlePolicy.CodeFree {
		expect(t, requestWith(t, c, "POST", apiBase+"/sign_up_with_license_code", a.headers(), guess(i)), 401, "license_invalid")
	}
	expectThrottled(t, requestWith(t, c, "POST", apiBase+"/sign_up_with_license_code", a.headers(), guess(-1)))
	expectThrottled(t, requestWith(t, c, "GET", apiBase+"/app_context", a.headers("x-api-license-code", "GUESS-99999-AAAAA-BBBBB-CCCCC"), nil))
	// The right code is never held back: a buyer behind the guesser's
	// address signs up with it and then uses it in the header.
	expect(t, requestWith(t, c, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": code}), 201, "")
	expect(t, requestWith(t, c, "GET", apiBase+"/app_context", a.headers("x-api-license-code", code), nil), 200, "")

	s := clientFrom("127.0.0.51")
	wrong := app{id: a.id, key: a.key, secret: "as_not-the-secret"}
	for range access.DefaultThrottlePolicy.SecretFree {
		expect(t, requestWith(t, s, "GET", apiBase+"/app_context", wrong.headers(), nil), 401, "invalid_application")
	}
	expectThrottled(t, requestWith(t, s, "GET", apiBase+"/app_context", wrong.headers(), nil))
	// The right secret is never held back (256 bits: nothing to guess).
	expect(t, requestWith(t, s, "GET", apiBase+"/app_context", a.headers(), nil), 401, "authentication_required")
	// Other clients are not affected.
	expect(t, requestWith(t, clientFrom("127.0.0.52"), "POST", apiBase+"/sign_up_with_license_code", a.headers(), guess(-2)), 401, "license_invalid")
}

func TestAbuse_UnknownAndExistingUsersTakeTheSameTime(t *testing.T) {
	startServer(t, "", "") // thresholds raised: this test measures time, not counts
	a := createApp(t, nil)
	activeUser(t, a, "known-user", "vortex-lamp-71")
	median := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)/2]
	}
	var known, unknown time.Duration
	for attempt := range 5 { // a real difference persists; noise does not
		var k, u []time.Duration
		for i := range 31 {
			// Each argon2id allocates 19 MiB, so the call after it tends to
			// pay for a collection: alternate which user goes first.
			order := []string{"known-user", "unknown-user"}
			if i%2 == 1 {
				slices.Reverse(order)
			}
			for _, user := range order {
				start := time.Now()
				r := loginFrom(t, a, "127.0.0.60", user, fmt.Sprintf("wrong-%d", i))
				took := time.Since(start)
				expect(t, r, 401, "invalid_credentials")
				if user == "known-user" {
					k = append(k, took)
				} else {
					u = append(u, took)
				}
			}
		}
		known, unknown = median(k), median(u)
		if ratio := float64(known) / float64(unknown); ratio > 0.9 && ratio < 1.1 {
			return
		}
		t.Logf("attempt %d: medians %v (existing) and %v (unknown)", attempt, known, unknown)
	}
	t.Fatalf("median login time %v for an existing user, %v for an unknown one: more than 10%% apart", known, unknown)
}

func TestAbuse_AnApplicationCanTightenItsThresholds(t *testing.T) {
	startThrottledServer(t, "")
	a := createApp(t, nil)
	r := request(t, "PATCH", adminBase+"/apps/"+a.id, nil, map[string]any{"throttle": map[string]any{"code_free": 2, "max_delay": "1m"}})
	expect(t, r, 200, "")
	if th := r.obj("throttle"); th["code_free"] != float64(2) || th["max_delay"] != "1m" {
		t.Fatalf("throttle shown as %v", r.body["throttle"])
	}
	expect(t, request(t, "PATCH", adminBase+"/apps/"+a.id, nil, map[string]any{"throttle": map[string]any{"window": "soon"}}), 422, "validation_failed")
	c := clientFrom("127.0.0.70")
	for i := range 2 {
		r := requestWith(t, c, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": fmt.Sprintf("GUESS-%05d-AAAAA-BBBBB-CCCCC", i)})
		expect(t, r, 401, "license_invalid")
	}
	expectThrottled(t, requestWith(t, c, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": "GUESS-99999-AAAAA-BBBBB-CCCCC"}))
}
