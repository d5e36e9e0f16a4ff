package clientapi

import (
	"context"
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// login serves POST /auth/login.
func (h *Handler) login(ctx context.Context, w http.ResponseWriter, r *http.Request, app *access.App) error {
	var b wire.LoginRequest
	if err := httpx.DecodeJSON(w, r, &b, MaxBodyBytes); err != nil {
		return err
	}
	c := b.Credentials
	switch {
	case c == nil:
		return access.Invalid(access.FieldError{Field: "credentials", Message: "is required"})
	case c.Code != "" && (c.Username != "" || c.Password != ""):
		return access.Invalid(access.FieldError{Field: "credentials", Message: "must be either {username, password} or {code}"})
	case c.Code == "":
		// The service refuses empty credentials as invalid (401); a
		// missing field is the client's mistake (422).
		if err := required([2]string{"credentials.username", c.Username}, [2]string{"credentials.password", c.Password}); err != nil {
			return err
		}
	}
	grant, err := h.svc().Login(ctx, app, access.LoginRequest{
		Credentials: access.Credentials{Username: c.Username, Password: c.Password, Code: c.Code, HardwareID: b.HardwareID},
		IP:          h.clientIP(r),
	})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, wire.Session{SessionToken: grant.Token, ExpiresAt: httpx.RFC3339(grant.ExpiresAt)})
	return nil
}

// logout serves POST /auth/logout.
func (h *Handler) logout(ctx context.Context, w http.ResponseWriter, r *http.Request, app *access.App) error {
	if err := h.svc().Logout(ctx, app, BearerToken(r)); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// changePassword serves POST /auth/change_password; the session of the
// Bearer token it is sent with, if any, stays open.
func (h *Handler) changePassword(ctx context.Context, w http.ResponseWriter, r *http.Request, app *access.App) error {
	var b wire.ChangePasswordRequest
	if err := httpx.DecodeJSON(w, r, &b, MaxPasswordBodyBytes); err != nil {
		return err
	}
	hwid := b.HardwareID
	if hwid == "" {
		hwid = headerValue(r, HeaderHardwareID)
	}
	err := h.svc().ChangePassword(ctx, app, access.PasswordChange{Username: b.Username, OldPassword: b.OldPassword,
		NewPassword: b.NewPassword, HardwareID: hwid, Token: BearerToken(r)})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}
