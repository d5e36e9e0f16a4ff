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
	// headerAuthorization carries a Bearer session token.
	headerAuthorization = "Authorization"
)

// headerValue is r.Header.Get(key) for a key in canonical form, as every
// header name of this package is: the key is not canonicalized again on
// each of the several reads of a request.
func headerValue(r *http.Request, key string) string {
	if v := r.Header[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// BearerToken returns the token of the first "Authorization: Bearer"
// header (a request may carry another scheme's header first), "" when
// there is none.
func BearerToken(r *http.Request) string {
	for _, v := range r.Header[headerAuthorization] {
		if token, ok := bearer(v); ok {
			return token
		}
	}
	return ""
}

// bearer reports whether an Authorization value is of the Bearer scheme
// (its name in any case, then a space or tab, or nothing), and its token.
func bearer(v string) (string, bool) {
	const scheme = "bearer"
	if len(v) < len(scheme) || !strings.EqualFold(v[:len(scheme)], scheme) {
		return "", false
	}
	if rest := v[len(scheme):]; rest == "" || rest[0] == ' ' || rest[0] == '\t' {
		return strings.TrimSpace(rest), true
	}
	return "", false
}

// DropBearerTokens removes every Authorization header of the Bearer
// scheme from h: what the upstream guard passes on holds no session
// token, whatever its spelling.
func DropBearerTokens(h http.Header) {
	vs := h[headerAuthorization]
	kept := vs[:0:0]
	for _, v := range vs {
		if _, ok := bearer(v); !ok {
			kept = append(kept, v)
		}
	}
	if len(kept) == 0 {
		delete(h, headerAuthorization)
	} else {
		h[headerAuthorization] = kept
	}
}

// HeaderCredentials reads a request's user credentials in the order the
// client API honours them: a Bearer token, then a license code header, then
// username and password headers. Only the first form present is returned.
func HeaderCredentials(r *http.Request) access.Credentials {
	c := access.Credentials{HardwareID: headerValue(r, HeaderHardwareID), Token: BearerToken(r)}
	switch {
	case c.Token != "":
	case headerValue(r, HeaderLicenseCode) != "":
		c.Code = headerValue(r, HeaderLicenseCode)
	default:
		c.Username = headerValue(r, HeaderUsername)
		c.Password = headerValue(r, HeaderPassword)
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
	return a.Service.AuthenticateApp(ctx, headerValue(r, HeaderAPIKey), headerValue(r, HeaderAPISecret))
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
