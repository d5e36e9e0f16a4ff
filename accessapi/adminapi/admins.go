package adminapi

import (
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// adminView describes an administrator without their secrets.
func adminView(a *access.Admin) wire.Admin {
	return wire.Admin{Username: a.Username, TOTPEnabled: a.TOTPEnabled, CreatedAt: httpx.RFC3339(a.CreatedAt)}
}

// createAdmin serves POST /admins.
func createAdmin(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.NewAdmin
	if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
		return err
	}
	a, err := svc.CreateAdmin(r.Context(), b.Username, b.Password)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, adminView(a))
	return nil
}

// listAdmins serves GET /admins.
func listAdmins(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	as, err := svc.Admins(r.Context())
	if err != nil {
		return err
	}
	return writePage(w, as, "", adminView)
}

// deleteAdmin serves DELETE /admins/{admin}.
func deleteAdmin(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.DeleteAdmin(r.Context(), r.PathValue("admin")); err != nil {
		return err
	}
	return noContent(w)
}

// beginTOTP serves POST /admins/{admin}/totp.
func beginTOTP(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	en, err := svc.BeginTOTP(r.Context(), r.PathValue("admin"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, wire.TOTPEnrolment{Secret: en.Secret, URL: en.URL})
	return nil
}

// confirmTOTP serves POST /admins/{admin}/totp/confirm.
func confirmTOTP(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.TOTPCode
	if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
		return err
	}
	if err := svc.ConfirmTOTP(r.Context(), r.PathValue("admin"), b.Code); err != nil {
		return err
	}
	return noContent(w)
}

// setAdminPassword serves POST /admins/{admin}/password.
func setAdminPassword(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.PasswordReset
	if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
		return err
	}
	if err := svc.SetAdminPassword(r.Context(), r.PathValue("admin"), b.Password); err != nil {
		return err
	}
	return noContent(w)
}

// disableTOTP serves DELETE /admins/{admin}/totp.
func disableTOTP(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.DisableTOTP(r.Context(), r.PathValue("admin")); err != nil {
		return err
	}
	return noContent(w)
}
