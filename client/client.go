// Package client is a Go client of App Access's client API, for the apps
// whose users App Access authenticates: sign-up, login, logout, license
// activation, password change, the application context and file downloads
// with resume and a SHA-256 check. It uses only the standard library.
//
// Every method takes a context and the client has a default timeout. A
// refusal is an *Error that wraps one of the sentinel errors of this package
// (ErrInvalidCredentials, ErrMembershipInactive…), so callers write
//
//	if errors.Is(err, client.ErrInvalidCredentials) { … }
//
// The API is described by an OpenAPI 3.1 document that the server serves at
// GET /openapi.json; see docs/client.md.
package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout bounds a request when the context has no earlier deadline.
// Downloads are bounded only by their context.
const DefaultTimeout = 30 * time.Second

// Client calls one application's client API. It is safe for concurrent use.
type Client struct {
	base       *url.URL
	apiKey     string
	apiSecret  string
	hardwareID string
	http       *http.Client
	timeout    time.Duration
	userAgent  string
	// verifier, when set, checks every answer's signature.
	verifier *verifier
	// optionErr is the first option that could not be applied.
	optionErr error
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends the requests through hc (its transport, proxy and
// TLS settings); its own Timeout, if any, also applies.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithTimeout bounds each request (but downloads) to d; 0 leaves only the
// context's deadline. Default DefaultTimeout.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithHardwareID sends id as the device on sign-ups, logins, header
// authentication and session-token requests, for applications with device
// authentication. HardwareID
// derives one.
func WithHardwareID(id string) Option { return func(c *Client) { c.hardwareID = id } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client of the API at baseURL (such as
// https://api.example.com, or http://localhost:8080) for the application
// with this key and secret.
func New(baseURL, apiKey, apiSecret string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("client: base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q: want http:// or https:// and a host", baseURL)
	}
	if apiKey == "" || apiSecret == "" {
		return nil, errors.New("client: the application's key and secret are required")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	c := &Client{base: u, apiKey: apiKey, apiSecret: apiSecret, http: http.DefaultClient, timeout: DefaultTimeout,
		userAgent: "app-access-go-client"}
	for _, o := range opts {
		o(c)
	}
	if c.optionErr != nil {
		return nil, c.optionErr
	}
	return c, nil
}

// request is one call of the API.
type request struct {
	method, path string
	body         any
	auth         Auth
	header       http.Header
	// stream leaves the answer's body open for the caller; the request has
	// no timeout but the context's.
	stream bool
}

// do sends r and decodes a JSON answer into out (when not nil). A refusal
// is an *Error. With r.stream the answer is returned with its body open.
func (c *Client) do(ctx context.Context, r request, out any) (*http.Response, error) {
	cancel := context.CancelFunc(func() {})
	if c.timeout > 0 && !r.stream {
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
	}
	defer cancel()
	var (
		body    io.Reader
		payload []byte // the body's bytes, which a signature binds
	)
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, fmt.Errorf("client: encoding the %s body: %w", r.path, err)
		}
		body, payload = bytes.NewReader(b), b
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.base.String()+r.path, body)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: %w", r.method, r.path, err)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	req.Header.Set("X-Api-Key", c.apiKey)
	req.Header.Set("X-Api-Secret", c.apiSecret)
	req.Header.Set("Accept", "application/json, application/problem+json")
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.auth != nil {
		r.auth.apply(req.Header, c.hardwareID)
	}
	nonce := ""
	if c.verifier != nil {
		nonce = newNonce()
		req.Header.Set(headerNonce, nonce)
	}
	res, err := c.http.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("client: %s %s: %w", r.method, r.path, ctxErr)
		}
		return nil, fmt.Errorf("client: %s %s: %w", r.method, r.path, err)
	}
	if c.verifier != nil {
		bodySum := sha256.Sum256(payload)
		a := answer{req: req, res: res, nonce: nonce, requestBody: bodySum[:], received: c.verifier.now()}
		if err := c.verify(&a, r.stream); err != nil {
			return nil, fmt.Errorf("client: %s %s: %w", r.method, r.path, err)
		}
	}
	if res.StatusCode >= 400 {
		defer res.Body.Close()
		return nil, errorOf(res)
	}
	if r.stream {
		return res, nil
	}
	defer res.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
		return res, nil
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return nil, fmt.Errorf("client: %s %s: decoding the answer: %w", r.method, r.path, err)
	}
	return res, nil
}

// maxVerifiedAnswer bounds an answer (but a download) read to be verified.
const maxVerifiedAnswer = 16 << 20

// verify checks a signed answer. A streamed body (a download) is checked
// as it ends (its reader fails with ErrBadSignature instead of io.EOF),
// its age when its headers came: a download may take longer than the
// bound. Any other body is read here and checked before it is decoded.
func (c *Client) verify(a *answer, stream bool) error {
	res := a.res
	if stream && res.StatusCode < 400 {
		res.Body = &verifiedBody{body: res.Body, hash: sha256.New(),
			check: func(sum []byte) error { return c.verifier.check(a, sum) }}
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxVerifiedAnswer))
	_ = res.Body.Close()
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	sum := sha256.Sum256(raw)
	if err := c.verifier.check(a, sum[:]); err != nil {
		return err
	}
	res.Body = io.NopCloser(bytes.NewReader(raw))
	return nil
}

// SignUp creates a user with a username and password (POST /sign_up). The
// user has no active membership until a license is activated.
func (c *Client) SignUp(ctx context.Context, username, password string) (*User, error) {
	var u User
	_, err := c.do(ctx, request{method: "POST", path: "/sign_up",
		body: map[string]string{"username": username, "password": password, "hardware_id": c.hardwareID}}, &u)
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// SignUpWithLicenseCode creates a user from a license code and activates
// it (POST /sign_up_with_license_code); the username is generated. The
// user logs in later with LoginWithLicenseCode.
func (c *Client) SignUpWithLicenseCode(ctx context.Context, code string) (*User, error) {
	var u User
	_, err := c.do(ctx, request{method: "POST", path: "/sign_up_with_license_code",
		body: map[string]string{"code": code, "hardware_id": c.hardwareID}}, &u)
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// Login opens a session with a username and password (POST /auth/login).
func (c *Client) Login(ctx context.Context, username, password string) (*Session, error) {
	return c.login(ctx, map[string]string{"username": username, "password": password})
}

// LoginWithLicenseCode opens a session for the user who activated code.
func (c *Client) LoginWithLicenseCode(ctx context.Context, code string) (*Session, error) {
	return c.login(ctx, map[string]string{"code": code})
}

func (c *Client) login(ctx context.Context, credentials map[string]string) (*Session, error) {
	var s Session
	_, err := c.do(ctx, request{method: "POST", path: "/auth/login",
		body: map[string]any{"credentials": credentials, "hardware_id": c.hardwareID}}, &s)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// Logout ends the session of token (POST /auth/logout); ending an ended
// session is no error.
func (c *Client) Logout(ctx context.Context, token string) error {
	_, err := c.do(ctx, request{method: "POST", path: "/auth/logout", auth: Token(token)}, nil)
	return err
}

// ChangePassword changes a user's password (POST /auth/change_password).
// The user's other sessions end; pass the current session's token in
// keep (or "") to keep that one open.
func (c *Client) ChangePassword(ctx context.Context, username, oldPassword, newPassword, keep string) error {
	r := request{method: "POST", path: "/auth/change_password",
		body: map[string]string{"username": username, "old_password": oldPassword, "new_password": newPassword, "hardware_id": c.hardwareID}}
	if keep != "" {
		r.auth = Token(keep)
	}
	_, err := c.do(ctx, r, nil)
	return err
}

// ActivateLicense activates a license code for a user (POST
// /activate_license): its time is added to the membership, or the
// membership becomes lifetime.
func (c *Client) ActivateLicense(ctx context.Context, code, username, password string) (*Activation, error) {
	var a Activation
	_, err := c.do(ctx, request{method: "POST", path: "/activate_license",
		body: map[string]string{"code": code, "username": username, "password": password}}, &a)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// AppContext returns the application (its variables and files) and the
// user auth authenticates (GET /app_context). With Anonymous, User is nil
// when the application allows anonymous access.
func (c *Client) AppContext(ctx context.Context, auth Auth) (*AppContext, error) {
	var ac AppContext
	if _, err := c.do(ctx, request{method: "GET", path: "/app_context", auth: auth}, &ac); err != nil {
		return nil, err
	}
	return &ac, nil
}
