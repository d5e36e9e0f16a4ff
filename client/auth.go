package client

import "net/http"

// Auth authenticates the user of a request: Token (a session), LicenseCode,
// Password (legacy header auth) or Anonymous.
type Auth interface {
	apply(h http.Header, hardwareID string)
}

// Token authenticates with a session token from Login. The client's
// hardware id (WithHardwareID), when it has one, is sent with it: with
// device authentication the server compares it with the device the
// session was opened on (another one is ErrDeviceMismatch), and an
// application that sets token_requires_hardware_id refuses a token sent
// without one (ErrDeviceRequired).
type Token string

func (t Token) apply(h http.Header, hardwareID string) {
	if t != "" {
		h.Set("Authorization", "Bearer "+string(t))
		setHardwareID(h, hardwareID)
	}
}

// LicenseCode authenticates the user who activated the code, on every
// request; the client's hardware id is sent with it.
type LicenseCode string

func (c LicenseCode) apply(h http.Header, hardwareID string) {
	h.Set("X-Api-License-Code", string(c))
	setHardwareID(h, hardwareID)
}

// Password authenticates with a username and password on every request
// (legacy auth; prefer a session); the client's hardware id is sent with it.
type Password struct {
	Username, Password string
}

func (p Password) apply(h http.Header, hardwareID string) {
	h.Set("X-Api-Username", p.Username)
	h.Set("X-Api-Password", p.Password)
	setHardwareID(h, hardwareID)
}

// Anonymous sends no user, for applications that allow anonymous access.
var Anonymous Auth = anonymous{}

type anonymous struct{}

func (anonymous) apply(http.Header, string) {}

func setHardwareID(h http.Header, id string) {
	if id != "" {
		h.Set("X-Hardware-Id", id)
	}
}
