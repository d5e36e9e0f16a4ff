package caddymodule

import (
	"net/url"
	"strings"
)

// redactURIError words a connection-string error without the password.
func redactURIError(err error, uri string) string {
	msg := err.Error()
	if u, perr := url.Parse(uri); perr == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return msg
}
