package dashboard

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// strictTransportSecurity is the HSTS policy of a dashboard reached over
// TLS: a year, for this host only. Not includeSubDomains, since the name's
// other hosts may serve plain HTTP; not preload, which binds the whole
// domain and is the operator's decision.
const strictTransportSecurity = "max-age=31536000"

// setStrictTransportSecurity tells a browser that reached the dashboard
// over TLS to use HTTPS only for this host from now on, so that a network
// attacker cannot downgrade a later visit (typed as http://) and read the
// password or session cookie. It is not sent over plain HTTP (localhost
// development, or a proxy in front that ends TLS, whose own answer should
// carry it): browsers ignore it there, and a development host must stay
// reachable over HTTP. Nor is it sent for localhost or an IP address
// (localDevelopmentHost): a browser that kept it for localhost would force
// HTTPS on every local server on every port for a year.
func setStrictTransportSecurity(w http.ResponseWriter, r *http.Request) {
	if r.TLS != nil && !localDevelopmentHost(r.Host) {
		w.Header().Set("Strict-Transport-Security", strictTransportSecurity)
	}
}

// localDevelopmentHost reports whether a request's Host (with or without
// a port) is localhost, a name under .localhost, or an IP address, for
// which RFC 6797 (8.1.1) has browsers keep no policy anyway.
func localDevelopmentHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}
