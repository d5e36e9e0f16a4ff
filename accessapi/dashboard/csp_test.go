package dashboard

import (
	"strings"
	"testing"
)

func TestContentSecurityPolicy_AllowsOnlyTheNoncedStyleAndSameSiteForms(t *testing.T) {
	got := contentSecurityPolicy("abc123")
	for _, want := range []string{
		"default-src 'none'",
		"script-src 'none'",
		"style-src 'nonce-abc123'",
		"form-action 'self'",
		"frame-ancestors 'none'",
		"base-uri 'none'",
		"require-trusted-types-for 'script'",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("policy %q lacks %q", got, want)
		}
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "*", "http:", "data:"} {
		if strings.Contains(got, bad) {
			t.Errorf("policy %q allows %q", got, bad)
		}
	}
}

func TestNewNonce_IsFreshEachTime(t *testing.T) {
	a, b := newNonce(), newNonce()
	if a == b || len(a) < 20 {
		t.Fatalf("nonces %q and %q", a, b)
	}
}
