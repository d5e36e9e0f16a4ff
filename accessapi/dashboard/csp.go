package dashboard

import (
	"crypto/rand"
	"encoding/base64"
	"sort"
	"strings"
)

// contentSecurityPolicy builds the policy of a page whose one inline style
// block carries nonce. Nothing else may load: no script at all (the pages
// need none), no frame, no plugin; forms post only to this site.
func contentSecurityPolicy(nonce string) string {
	directives := map[string]string{
		"default-src":               "'none'",
		"script-src":                "'none'",
		"style-src":                 "'nonce-" + nonce + "'",
		"img-src":                   "'self'",
		"form-action":               "'self'",
		"frame-ancestors":           "'none'",
		"base-uri":                  "'none'",
		"require-trusted-types-for": "'script'",
	}
	names := make([]string, 0, len(directives))
	for k := range directives {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, k := range names {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(k + " " + directives[k])
	}
	return b.String()
}

// newNonce returns 128 random bits for one response's CSP nonce.
func newNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b) // no character html/template escapes
}
