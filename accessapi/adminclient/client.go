// Package adminclient is a typed client of App Access's management API,
// the routes Caddy's admin endpoint serves under /app_access/. It has one
// method per route, takes and returns the wire types, and turns every
// refusal into a *Problem. It uses only the standard library.
package adminclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// DefaultAddress is Caddy's default admin address.
const DefaultAddress = "localhost:2019"

// DefaultPrefix is where Caddy's admin endpoint mounts the routes.
const DefaultPrefix = "/app_access"

// Client calls the management API of one server.
type Client struct {
	address string // as given, for messages
	base    string // scheme://host and the prefix
	origin  string // the Origin header, for Caddy's origin checks ("" on a socket)
	http    *http.Client
}

// Option adjusts a Client.
type Option func(*Client)

// WithHTTPClient sends the requests with hc (for example one with the
// client certificate of a remote admin endpoint). On a Unix socket the
// client's transport is replaced by one that dials the socket.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithPrefix serves the routes under another URL path prefix than
// DefaultPrefix.
func WithPrefix(prefix string) Option {
	return func(c *Client) { c.base = strings.TrimSuffix(c.base, DefaultPrefix) + strings.TrimSuffix(prefix, "/") }
}

// New returns a client of the server whose admin endpoint listens at
// address, in any of the forms Caddy accepts or prints: "localhost:2019",
// "http://localhost:2019", "https://admin.example.com:2019", ":2019",
// "tcp/localhost:2019" or "unix//run/caddy/admin.sock". Nothing is dialled
// until the first call.
func New(address string, opts ...Option) (*Client, error) {
	ep, err := parseAddress(address)
	if err != nil {
		return nil, err
	}
	c := &Client{address: address, base: ep.baseURL + DefaultPrefix, origin: ep.origin, http: &http.Client{}}
	for _, o := range opts {
		o(c)
	}
	if ep.socket != "" {
		hc := *c.http
		hc.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", ep.socket)
		}}
		c.http = &hc
	}
	return c, nil
}

// Address is the admin address the client was made for.
func (c *Client) Address() string { return c.address }

// endpoint is where an admin address is reached.
type endpoint struct {
	baseURL string // scheme://host, no trailing slash
	origin  string
	socket  string // a Unix socket's path, else ""
}

func parseAddress(address string) (endpoint, error) {
	a := strings.TrimSpace(address)
	if a == "" {
		return endpoint{}, errors.New("admin address is empty")
	}
	if path, ok := strings.CutPrefix(a, "unix/"); ok {
		// Caddy allows socket permission bits after a bar: unix//a.sock|0600.
		path, _, _ = strings.Cut(path, "|")
		if path == "" {
			return endpoint{}, fmt.Errorf("admin address %q: no socket path", address)
		}
		// The host is a placeholder Caddy accepts for socket requests.
		return endpoint{baseURL: "http://127.0.0.1", socket: path}, nil
	}
	a = strings.TrimPrefix(a, "tcp/")
	scheme := "http"
	if s, rest, ok := strings.Cut(a, "://"); ok {
		if s != "http" && s != "https" {
			return endpoint{}, fmt.Errorf("admin address %q: scheme must be http or https", address)
		}
		scheme, a = s, strings.TrimSuffix(rest, "/")
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return endpoint{}, fmt.Errorf("admin address %q: want host:port: %w", address, err)
	}
	if host == "" {
		host = "localhost" // ":2019" listens on every interface, this one too
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	return endpoint{baseURL: u.String(), origin: u.String()}, nil
}

// call sends a request and decodes a 2xx JSON answer into out (nil: no
// body expected). body is JSON-encoded unless it is an io.Reader, which is
// sent as is with contentType.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body any, contentType string, out any) error {
	var rdr io.Reader
	switch b := body.(type) {
	case nil:
	case io.Reader:
		rdr = b
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("encoding the %s %s body: %w", method, path, err)
		}
		rdr, contentType = bytes.NewReader(j), "application/json"
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rdr)
	if err != nil {
		return fmt.Errorf("making the %s %s request: %w", method, path, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.origin != "" {
		req.Header.Set("Origin", c.origin)
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &ConnectError{Address: c.address, Err: err}
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return problemOf(res)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		return nil
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return fmt.Errorf("decoding the answer of %s %s: %w", method, path, err)
	}
	return nil
}

// get, post, put, patch and del are call for one method.

func (c *Client) get(ctx context.Context, path string, query url.Values, out any) error {
	return c.call(ctx, http.MethodGet, path, query, nil, "", out)
}

func (c *Client) send(ctx context.Context, method, path string, body, out any) error {
	return c.call(ctx, method, path, nil, body, "", out)
}

func (c *Client) del(ctx context.Context, path string) error {
	return c.call(ctx, http.MethodDelete, path, nil, nil, "", nil)
}

// ConnectError is a request that reached no server.
type ConnectError struct {
	// Address is the admin address tried.
	Address string
	Err     error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("cannot reach the admin endpoint at %s: %v", e.Address, e.Err)
}

// Unwrap returns the transport's error.
func (e *ConnectError) Unwrap() error { return e.Err }

// seg escapes one path segment.
func seg(s string) string { return url.PathEscape(s) }
