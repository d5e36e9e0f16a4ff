package adminapi

import (
	"context"

	"github.com/appaccess/appaccess/accessapi/access"
)

// Principal is who acts through the management API, for the audit log
// (access.Principal, which the service's events carry to it).
type Principal = access.Principal

// PrincipalAdminEndpoint is a caller of Caddy's admin endpoint, which
// authenticates no one itself (it trusts its listener: a local address, a
// Unix socket, or mTLS for remote admin).
const PrincipalAdminEndpoint = access.PrincipalAdminEndpoint

// WithPrincipal returns ctx carrying the acting principal; a front end
// that authenticates its callers sets it before calling the Handler.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return access.WithPrincipal(ctx, p)
}

// PrincipalFrom returns the acting principal of a management request.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	return access.PrincipalFrom(ctx)
}
