package adminapi

import "context"

// Principal is who acts through the management API, for the audit log.
type Principal struct {
	// Kind says what Name is: PrincipalAdminEndpoint today; a seller key
	// or a dashboard user once those exist.
	Kind string
	// Name identifies the principal within its kind (for the admin
	// endpoint, the caller's remote address).
	Name string
}

// PrincipalAdminEndpoint is a caller of Caddy's admin endpoint, which
// authenticates no one itself (it trusts its listener: a local address, a
// Unix socket, or mTLS for remote admin).
const PrincipalAdminEndpoint = "admin_endpoint"

type principalKey struct{}

// WithPrincipal returns ctx carrying the acting principal; a front end
// that authenticates its callers sets it before calling the Handler.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the acting principal of a management request.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
