package access

import "context"

// Principal is who acts: an administrator through the management API, a
// client of an application, or the process itself. The audit log records
// it with every entry.
type Principal struct {
	// Kind says what Name is: PrincipalAdminEndpoint, PrincipalClient or
	// PrincipalSystem today; a seller key or a dashboard user once those
	// exist.
	Kind string
	// Name identifies the principal within its kind (for the admin
	// endpoint, the caller's remote address; for a client, its address).
	Name string
}

// The principal kinds this package knows.
const (
	// PrincipalAdminEndpoint is a caller of Caddy's admin endpoint, which
	// authenticates no one itself (it trusts its listener: a local
	// address, a Unix socket, or mTLS for remote admin).
	PrincipalAdminEndpoint = "admin_endpoint"
	// PrincipalClient is a client of an application's client API, named
	// by its address (see WithClientAddress).
	PrincipalClient = "client"
	// PrincipalSystem is the process itself: background work, or a call
	// that carries no principal.
	PrincipalSystem = "system"
)

type principalKey struct{}

// WithPrincipal returns ctx carrying the acting principal; a front end
// that authenticates its callers sets it before calling the service.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal WithPrincipal put in ctx, if any.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// PrincipalOf returns who acts in ctx: the principal WithPrincipal set,
// else the client whose address WithClientAddress set, else the system.
func PrincipalOf(ctx context.Context) Principal {
	if p, ok := PrincipalFrom(ctx); ok {
		return p
	}
	if addr := ClientAddress(ctx); addr != "" {
		return Principal{Kind: PrincipalClient, Name: addr}
	}
	return Principal{Kind: PrincipalSystem}
}
