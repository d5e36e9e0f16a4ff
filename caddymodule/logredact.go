package caddymodule

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"unsafe"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/appaccess/appaccess/accessapi/clientapi"
)

// credentialHeaders are the request headers that carry a credential App
// Access reads. Caddy's request logs redact only Authorization and cookies
// (and Authorization not with log_credentials on); these would otherwise
// be written in clear text by any `log` on a site that serves the client
// API or the guard.
var credentialHeaders = []string{
	"Authorization",
	clientapi.HeaderAPISecret,
	clientapi.HeaderPassword,
	clientapi.HeaderLicenseCode,
	clientapi.HeaderHardwareID,
}

// redactedValue replaces a credential in a log line, as Caddy's own
// redaction does.
const redactedValue = "REDACTED"

// guardServerLogs makes the request logs of the HTTP server being
// provisioned (its access, error and trace logs) write the credential
// headers as REDACTED, whether or not `log` is configured and with no
// setting to know about. Caddy clones each request for these logs before
// any handler runs, so a handler cannot remove the headers in time; the
// loggers are wrapped instead, once per server, while the server is being
// provisioned (no request is served yet). ctx is a handler's provisioning
// context; outside an HTTP server it does nothing.
func guardServerLogs(ctx caddy.Context) error {
	srv, ok := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if !ok || srv == nil {
		return nil
	}
	v := reflect.ValueOf(srv).Elem()
	loggerType := reflect.TypeFor[*zap.Logger]()
	for _, name := range []string{"accessLogger", "errorLogger", "traceLogger"} {
		f := v.FieldByName(name)
		if !f.IsValid() || f.Type() != loggerType {
			// A Caddy whose server no longer has this logger: refuse
			// to run rather than risk writing credentials.
			return fmt.Errorf("cannot guard the %s of this Caddy version against logging credentials", name)
		}
		logger := (**zap.Logger)(unsafe.Pointer(f.UnsafeAddr()))
		if *logger == nil {
			continue
		}
		if _, done := (*logger).Core().(redactingCore); done {
			continue
		}
		*logger = (*logger).WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return redactingCore{c} }))
	}
	return nil
}

// redactingCore rewrites the request field that Caddy attaches to its
// request loggers (zap's With, applied lazily), redacting credentials.
type redactingCore struct{ zapcore.Core }

// With implements zapcore.Core.
func (c redactingCore) With(fields []zapcore.Field) zapcore.Core {
	return redactingCore{c.Core.With(redactRequestFields(fields))}
}

// redactRequestFields returns fields with every logged request's credential
// headers redacted; it copies only when there is something to redact.
func redactRequestFields(fields []zapcore.Field) []zapcore.Field {
	out := fields
	for i, f := range fields {
		lr, ok := f.Interface.(caddyhttp.LoggableHTTPRequest)
		if !ok || f.Type != zapcore.ObjectMarshalerType || lr.Request == nil || !carriesCredential(lr.Header) {
			continue
		}
		if &out[0] == &fields[0] {
			out = slices.Clone(fields)
		}
		r := *lr.Request
		r.Header = redactedHeader(lr.Header)
		out[i] = zap.Object(f.Key, caddyhttp.LoggableHTTPRequest{Request: &r, ShouldLogCredentials: lr.ShouldLogCredentials})
	}
	return out
}

func carriesCredential(h http.Header) bool {
	for _, name := range credentialHeaders {
		if _, ok := h[name]; ok {
			return true
		}
	}
	return false
}

// redactedHeader is a copy of h with the credential headers redacted.
func redactedHeader(h http.Header) http.Header {
	out := h.Clone()
	for _, name := range credentialHeaders {
		if _, ok := out[name]; ok {
			out[name] = []string{redactedValue}
		}
	}
	return out
}
