package caddymodule

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzDropCookies: whatever the Cookie fields, none of the dropped names
// is left and every other cookie is kept, in order.
func FuzzDropCookies(f *testing.F) {
	for _, s := range []string{"a=1; __Host-aa_dash=x; b=2", "aa_dash=x", "a=1;aa_dash", ";;", " aa_dash = x ; c", "a=1\nb=2"} {
		f.Add(s, "d=4")
	}
	f.Fuzz(func(t *testing.T, first, second string) {
		drop := func(name string) bool { return name == "aa_dash" || name == "__Host-aa_dash" }
		h := http.Header{"Cookie": {first, second}}
		var want []string
		for _, field := range []string{first, second} {
			for _, pair := range strings.Split(field, ";") {
				name, _, _ := strings.Cut(strings.TrimSpace(pair), "=")
				if !drop(strings.TrimSpace(name)) && strings.TrimSpace(pair) != "" {
					want = append(want, strings.TrimSpace(pair))
				}
			}
		}
		dropCookies(h, drop)
		var got []string
		for _, field := range h.Values("Cookie") {
			for _, pair := range strings.Split(field, ";") {
				name, _, _ := strings.Cut(strings.TrimSpace(pair), "=")
				if drop(strings.TrimSpace(name)) {
					t.Fatalf("%q left in %q", name, h.Values("Cookie"))
				}
				if strings.TrimSpace(pair) != "" {
					got = append(got, strings.TrimSpace(pair))
				}
			}
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("kept %q, want %q", got, want)
		}
	})
}
