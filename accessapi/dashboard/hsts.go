package dashboard

import "net/http"

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
// reachable over HTTP.
func setStrictTransportSecurity(w http.ResponseWriter, r *http.Request) {
	if r.TLS != nil {
		w.Header().Set("Strict-Transport-Security", strictTransportSecurity)
	}
}
