package caddymodule

import (
	"net/http"
	"strings"
)

// dropCookies removes from h's Cookie fields every cookie whose name drop
// matches, keeping the others as sent, and a field left empty. (HTTP/2
// may split the cookies into several fields: each is filtered.)
func dropCookies(h http.Header, drop func(name string) bool) {
	fields := h.Values("Cookie")
	if len(fields) == 0 {
		return
	}
	var kept []string
	changed := false
	for _, field := range fields {
		var parts []string
		for _, pair := range strings.Split(field, ";") {
			name, _, _ := strings.Cut(strings.TrimSpace(pair), "=")
			if drop(strings.TrimSpace(name)) {
				changed = true
				continue
			}
			if strings.TrimSpace(pair) != "" {
				parts = append(parts, strings.TrimSpace(pair))
			}
		}
		if len(parts) > 0 {
			kept = append(kept, strings.Join(parts, "; "))
		}
	}
	if !changed {
		return
	}
	h.Del("Cookie")
	for _, field := range kept {
		h.Add("Cookie", field)
	}
}
