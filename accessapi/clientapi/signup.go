package clientapi

import (
	"context"
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// signUp serves POST /sign_up.
func (h *Handler) signUp(ctx context.Context, w http.ResponseWriter, r *http.Request, app *access.App) error {
	var b wire.SignUpRequest
	if err := httpx.DecodeJSON(w, r, &b, MaxPasswordBodyBytes); err != nil {
		return err
	}
	// The service words an empty username or password as a length rule;
	// the API has always said "is required".
	if err := required([2]string{"username", b.Username}, [2]string{"password", b.Password}); err != nil {
		return err
	}
	u, err := h.svc().SignUp(ctx, app, access.SignUpRequest{Username: b.Username, Password: b.Password, HardwareID: b.HardwareID})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, userView(u, h.svc().Now()))
	return nil
}

// signUpWithLicenseCode serves POST /sign_up_with_license_code.
func (h *Handler) signUpWithLicenseCode(ctx context.Context, w http.ResponseWriter, r *http.Request, app *access.App) error {
	var b wire.LicenseSignUpRequest
	if err := httpx.DecodeJSON(w, r, &b, MaxBodyBytes); err != nil {
		return err
	}
	u, err := h.svc().SignUpWithLicense(ctx, app, b.Code, b.HardwareID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, userView(u, h.svc().Now()))
	return nil
}

// activateLicense serves POST /activate_license.
func (h *Handler) activateLicense(ctx context.Context, w http.ResponseWriter, r *http.Request, app *access.App) error {
	var b wire.ActivateLicenseRequest
	if err := httpx.DecodeJSON(w, r, &b, MaxBodyBytes); err != nil {
		return err
	}
	a, err := h.svc().ActivateLicense(ctx, app, access.ActivateRequest{Code: b.Code, Username: b.Username, Password: b.Password})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, ActivationView(a))
	return nil
}

// required lists the named fields that are empty.
func required(fields ...[2]string) *access.Error {
	var missing []access.FieldError
	for _, f := range fields {
		if f[1] == "" {
			missing = append(missing, access.FieldError{Field: f[0], Message: "is required"})
		}
	}
	if len(missing) > 0 {
		return access.Invalid(missing...)
	}
	return nil
}
