package httpx

import (
	"net"
	"net/http"
)

// RemoteIP is the host part of r.RemoteAddr, without the port (the whole
// of it when it has none): the client address of a server with no
// trusted proxy in front. A port is per connection, so a throttle keyed on
// it would give a guesser a new allowance with each connection.
func RemoteIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
