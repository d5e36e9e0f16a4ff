package clientapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/appaccess/appaccess/accessapi/access"
)

// The request headers of the client API.
const (
	HeaderAPIKey      = "X-Api-Key"
	HeaderAPISecret   = "X-Api-Secret"
	HeaderUsername    = "X-Api-Username"
	HeaderPassword    = "X-Api-Password"
	HeaderLicenseCode = "X-Api-License-Code"
	HeaderHardwareID  = "X-Hardware-Id"
)

// BearerToken returns the token of an "Authorization: Bearer" header.
func BearerToken(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// HeaderCredentials reads a request's user credentials in the order the
// client API honours them: a Bearer token, then a license code header, then
// username and password headers. Only the first form present is returned.
func HeaderCredentials(r *http.Request) access.Credentials {
	c := access.Credentials{HardwareID: r.Header.Get(HeaderHardwareID), Token: BearerToken(r)}
	switch {
	case c.Token != "":
	case r.Header.Get(HeaderLicenseCode) != "":
		c.Code = r.Header.Get(HeaderLicenseCode)
	default:
		c.Username = r.Header.Get(HeaderUsername)
		c.Password = r.Header.Get(HeaderPassword)
	}
	return c
}

// Authenticator checks the application and user credentials of a request,
// exactly as GET /app_context does. The upstream guard uses it too.
type Authenticator struct {
	Service *access.Service
}

// App authenticates the application of a request.
func (a Authenticator) App(r *http.Request) (*access.App, error) {
	return a.app(r.Context(), r)
}

// app authenticates the application of r in ctx, which carries the
// client's address (access.WithClientAddress) for throttling.
func (a Authenticator) app(ctx context.Context, r *http.Request) (*access.App, error) {
	return a.Service.AuthenticateApp(ctx, r.Header.Get(HeaderAPIKey), r.Header.Get(HeaderAPISecret))
}

// User authenticates the application and then the user of a request. The
// user is nil for an anonymous request the application allows.
func (a Authenticator) User(r *http.Request, requireActive bool) (*access.App, *access.UserView, error) {
	app, err := a.App(r)
	if err != nil {
		return nil, nil, err
	}
	u, err := a.Service.Authenticate(r.Context(), app, HeaderCredentials(r), requireActive)
	return app, u, err
}
