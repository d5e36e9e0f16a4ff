package adminclient

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/appaccess/appaccess/accessapi/wire"
)

// Health calls GET /health: it answers once the store is connected.
func (c *Client) Health(ctx context.Context) (*wire.Health, error) {
	var out wire.Health
	return &out, c.get(ctx, "/health", nil, &out)
}

// CreateApp calls POST /apps; the answer holds the only copy of the
// application's secret.
func (c *Client) CreateApp(ctx context.Context, settings wire.AppSettings) (*wire.App, error) {
	var out wire.App
	return &out, c.send(ctx, http.MethodPost, "/apps", settings, &out)
}

// Apps calls GET /apps.
func (c *Client) Apps(ctx context.Context) (*wire.Page[wire.App], error) {
	var out wire.Page[wire.App]
	return &out, c.get(ctx, "/apps", nil, &out)
}

// App calls GET /apps/{app}.
func (c *Client) App(ctx context.Context, appID string) (*wire.App, error) {
	var out wire.App
	return &out, c.get(ctx, "/apps/"+seg(appID), nil, &out)
}

// Activity calls GET /apps/{app}/activity; days 0 takes the server's
// default.
func (c *Client) Activity(ctx context.Context, appID string, days int) (*wire.Activity, error) {
	var q url.Values
	if days != 0 {
		q = url.Values{"days": {strconv.Itoa(days)}}
	}
	var out wire.Activity
	return &out, c.get(ctx, "/apps/"+seg(appID)+"/activity", q, &out)
}

// UpdateApp calls PATCH /apps/{app}; nil settings keep their value.
func (c *Client) UpdateApp(ctx context.Context, appID string, settings wire.AppSettings) (*wire.App, error) {
	var out wire.App
	return &out, c.send(ctx, http.MethodPatch, "/apps/"+seg(appID), settings, &out)
}

// DeleteApp calls DELETE /apps/{app}.
func (c *Client) DeleteApp(ctx context.Context, appID string) error {
	return c.del(ctx, "/apps/"+seg(appID))
}

// RotateSecret calls POST /apps/{app}/rotate_secret.
func (c *Client) RotateSecret(ctx context.Context, appID string) (*wire.SecretRotation, error) {
	var out wire.SecretRotation
	return &out, c.send(ctx, http.MethodPost, "/apps/"+seg(appID)+"/rotate_secret", nil, &out)
}

// CreateLicenses calls POST /apps/{app}/licenses: the only answer with the
// codes in full.
func (c *Client) CreateLicenses(ctx context.Context, appID string, req wire.LicenseRequest) (*wire.IssuedLicenses, error) {
	var out wire.IssuedLicenses
	return &out, c.send(ctx, http.MethodPost, "/apps/"+seg(appID)+"/licenses", req, &out)
}

// LicenseQuery selects a page of licenses.
type LicenseQuery struct {
	// Used keeps only used (true) or unused (false) licenses; nil keeps all.
	Used *bool
	// After is the Next cursor of the previous page.
	After string
	// Limit is the page size, 1 to 1000; 0 takes the server's default.
	Limit int
}

// Licenses calls GET /apps/{app}/licenses.
func (c *Client) Licenses(ctx context.Context, appID string, q LicenseQuery) (*wire.Page[wire.License], error) {
	v := pageValues(q.After, q.Limit)
	if q.Used != nil {
		v.Set("used", strconv.FormatBool(*q.Used))
	}
	var out wire.Page[wire.License]
	return &out, c.get(ctx, "/apps/"+seg(appID)+"/licenses", v, &out)
}

// LookupLicense calls POST /apps/{app}/licenses/lookup: the license with
// this code. The code travels in the body, never in a logged URI.
func (c *Client) LookupLicense(ctx context.Context, appID, code string) (*wire.License, error) {
	var out wire.License
	return &out, c.send(ctx, http.MethodPost, "/apps/"+seg(appID)+"/licenses/lookup", wire.LicenseLookup{Code: code}, &out)
}

// License calls GET /apps/{app}/licenses/{license}.
func (c *Client) License(ctx context.Context, appID, licenseID string) (*wire.License, error) {
	var out wire.License
	return &out, c.get(ctx, "/apps/"+seg(appID)+"/licenses/"+seg(licenseID), nil, &out)
}

// DeleteLicense calls DELETE /apps/{app}/licenses/{license}.
func (c *Client) DeleteLicense(ctx context.Context, appID, licenseID string) error {
	return c.del(ctx, "/apps/"+seg(appID)+"/licenses/"+seg(licenseID))
}

// UserQuery selects a page of users, or the user with a name.
type UserQuery struct {
	// Username finds the user with this name, ignoring case.
	Username string
	// Prefix lists the users whose name starts with it, ignoring case.
	Prefix string
	// After is the Next cursor of the previous page.
	After string
	// Limit is the page size, 1 to 1000; 0 takes the server's default.
	Limit int
}

// Users calls GET /apps/{app}/users.
func (c *Client) Users(ctx context.Context, appID string, q UserQuery) (*wire.Page[wire.UserSummary], error) {
	v := pageValues(q.After, q.Limit)
	if q.Username != "" {
		v.Set("username", q.Username)
	}
	if q.Prefix != "" {
		v.Set("prefix", q.Prefix)
	}
	var out wire.Page[wire.UserSummary]
	return &out, c.get(ctx, "/apps/"+seg(appID)+"/users", v, &out)
}

// Activations calls GET /apps/{app}/users/{user}/activations: a page of
// the user's ledger after the cursor.
func (c *Client) Activations(ctx context.Context, appID, userID, after string, limit int) (*wire.Page[wire.LedgerEntry], error) {
	var out wire.Page[wire.LedgerEntry]
	return &out, c.get(ctx, userPath(appID, userID, "/activations"), pageValues(after, limit), &out)
}

// User calls GET /apps/{app}/users/{user}.
func (c *Client) User(ctx context.Context, appID, userID string) (*wire.UserDetail, error) {
	var out wire.UserDetail
	return &out, c.get(ctx, userPath(appID, userID, ""), nil, &out)
}

// DeleteUser calls DELETE /apps/{app}/users/{user}.
func (c *Client) DeleteUser(ctx context.Context, appID, userID string) error {
	return c.del(ctx, userPath(appID, userID, ""))
}

// BanUser calls POST /apps/{app}/users/{user}/ban.
func (c *Client) BanUser(ctx context.Context, appID, userID string, req wire.BanRequest) error {
	return c.send(ctx, http.MethodPost, userPath(appID, userID, "/ban"), req, nil)
}

// UnbanUser calls POST /apps/{app}/users/{user}/unban.
func (c *Client) UnbanUser(ctx context.Context, appID, userID string) error {
	return c.send(ctx, http.MethodPost, userPath(appID, userID, "/unban"), nil, nil)
}

// ResetDevices calls DELETE /apps/{app}/users/{user}/devices.
func (c *Client) ResetDevices(ctx context.Context, appID, userID string) error {
	return c.del(ctx, userPath(appID, userID, "/devices"))
}

// EndSessions calls DELETE /apps/{app}/users/{user}/sessions.
func (c *Client) EndSessions(ctx context.Context, appID, userID string) error {
	return c.del(ctx, userPath(appID, userID, "/sessions"))
}

// Grant calls POST /apps/{app}/users/{user}/grant.
func (c *Client) Grant(ctx context.Context, appID, userID string, req wire.GrantRequest) (*wire.LedgerEntry, error) {
	var out wire.LedgerEntry
	return &out, c.send(ctx, http.MethodPost, userPath(appID, userID, "/grant"), req, &out)
}

// ResetPassword calls POST /apps/{app}/users/{user}/password: it sets the
// user's password and ends the user's sessions.
func (c *Client) ResetPassword(ctx context.Context, appID, userID, password string) error {
	return c.send(ctx, http.MethodPost, userPath(appID, userID, "/password"), wire.PasswordReset{Password: password}, nil)
}

// Variables calls GET /apps/{app}/variables.
func (c *Client) Variables(ctx context.Context, appID string) (*wire.Page[wire.Variable], error) {
	var out wire.Page[wire.Variable]
	return &out, c.get(ctx, "/apps/"+seg(appID)+"/variables", nil, &out)
}

// SetVariable calls PUT /apps/{app}/variables/{name}.
func (c *Client) SetVariable(ctx context.Context, appID, name, value string) (*wire.Variable, error) {
	var out wire.Variable
	return &out, c.send(ctx, http.MethodPut, "/apps/"+seg(appID)+"/variables/"+seg(name), wire.VariableValue{Value: &value}, &out)
}

// DeleteVariable calls DELETE /apps/{app}/variables/{name}.
func (c *Client) DeleteVariable(ctx context.Context, appID, name string) error {
	return c.del(ctx, "/apps/"+seg(appID)+"/variables/"+seg(name))
}

// Upload describes a file to upload.
type Upload struct {
	// Name is the file's name as clients see it.
	Name string
	// MimeType is the media type to store; empty lets the server detect it
	// from the name and the first bytes.
	MimeType string
	// Encrypted stores the file encrypted.
	Encrypted bool
}

// UploadFile calls POST /apps/{app}/files, streaming the contents.
func (c *Client) UploadFile(ctx context.Context, appID string, up Upload, contents io.Reader) (*wire.FileInfo, error) {
	q := url.Values{"name": {up.Name}}
	if up.MimeType != "" {
		q.Set("mime_type", up.MimeType)
	}
	if up.Encrypted {
		q.Set("encrypted", "true")
	}
	var out wire.FileInfo
	return &out, c.call(ctx, http.MethodPost, "/apps/"+seg(appID)+"/files", q, contents, up.MimeType, &out)
}

// Files calls GET /apps/{app}/files.
func (c *Client) Files(ctx context.Context, appID string) (*wire.Page[wire.FileInfo], error) {
	var out wire.Page[wire.FileInfo]
	return &out, c.get(ctx, "/apps/"+seg(appID)+"/files", nil, &out)
}

// DeleteFile calls DELETE /apps/{app}/files/{file}.
func (c *Client) DeleteFile(ctx context.Context, appID, fileID string) error {
	return c.del(ctx, "/apps/"+seg(appID)+"/files/"+seg(fileID))
}

func userPath(appID, userID, suffix string) string {
	return "/apps/" + seg(appID) + "/users/" + seg(userID) + suffix
}

func pageValues(after string, limit int) url.Values {
	v := url.Values{}
	if after != "" {
		v.Set("after", after)
	}
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	return v
}
