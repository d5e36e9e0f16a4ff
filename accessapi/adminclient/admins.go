package adminclient

import (
	"context"
	"net/http"

	"github.com/appaccess/appaccess/accessapi/wire"
)

// CreateAdmin calls POST /admins.
func (c *Client) CreateAdmin(ctx context.Context, req wire.NewAdmin) (*wire.Admin, error) {
	var out wire.Admin
	return &out, c.send(ctx, http.MethodPost, "/admins", req, &out)
}

// Admins calls GET /admins.
func (c *Client) Admins(ctx context.Context) (*wire.Page[wire.Admin], error) {
	var out wire.Page[wire.Admin]
	return &out, c.get(ctx, "/admins", nil, &out)
}

// DeleteAdmin calls DELETE /admins/{admin}.
func (c *Client) DeleteAdmin(ctx context.Context, username string) error {
	return c.del(ctx, "/admins/"+seg(username))
}

// SetAdminPassword calls POST /admins/{admin}/password.
func (c *Client) SetAdminPassword(ctx context.Context, username, password string) error {
	return c.send(ctx, http.MethodPost, "/admins/"+seg(username)+"/password", wire.PasswordReset{Password: password}, nil)
}

// BeginTOTP calls POST /admins/{admin}/totp: the answer holds the only
// copy of the pending secret.
func (c *Client) BeginTOTP(ctx context.Context, username string) (*wire.TOTPEnrolment, error) {
	var out wire.TOTPEnrolment
	return &out, c.send(ctx, http.MethodPost, "/admins/"+seg(username)+"/totp", nil, &out)
}

// ConfirmTOTP calls POST /admins/{admin}/totp/confirm.
func (c *Client) ConfirmTOTP(ctx context.Context, username, code string) error {
	return c.send(ctx, http.MethodPost, "/admins/"+seg(username)+"/totp/confirm", wire.TOTPCode{Code: code}, nil)
}

// DisableTOTP calls DELETE /admins/{admin}/totp.
func (c *Client) DisableTOTP(ctx context.Context, username string) error {
	return c.del(ctx, "/admins/"+seg(username)+"/totp")
}

// CreateSellerKey calls POST /apps/{app}/keys: the answer holds the only
// copy of the key.
func (c *Client) CreateSellerKey(ctx context.Context, appID string, req wire.NewSellerKey) (*wire.SellerKey, error) {
	var out wire.SellerKey
	return &out, c.send(ctx, http.MethodPost, "/apps/"+seg(appID)+"/keys", req, &out)
}

// SellerKeys calls GET /apps/{app}/keys.
func (c *Client) SellerKeys(ctx context.Context, appID string) (*wire.Page[wire.SellerKey], error) {
	var out wire.Page[wire.SellerKey]
	return &out, c.get(ctx, "/apps/"+seg(appID)+"/keys", nil, &out)
}

// RevokeSellerKey calls DELETE /apps/{app}/keys/{key}.
func (c *Client) RevokeSellerKey(ctx context.Context, appID, keyID string) error {
	return c.del(ctx, "/apps/"+seg(appID)+"/keys/"+seg(keyID))
}
