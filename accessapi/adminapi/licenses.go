package adminapi

import (
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// createLicenses serves POST /apps/{app}/licenses: new codes, or an import
// of existing ones.
func createLicenses(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.LicenseRequest
	if err := httpx.DecodeStrictJSON(w, r, &b, maxLicenseBodyBytes); err != nil {
		return err
	}
	count := 1
	if b.Count != nil {
		if len(b.Codes) > 0 {
			return access.Invalid(access.FieldError{Field: "count", Message: "must not be given with codes: an import creates one license a code"})
		}
		count = *b.Count
	}
	ls, err := svc.CreateLicenses(r.Context(), r.PathValue("app"), access.LicenseRequest{Count: count, Note: b.Note, Codes: b.Codes,
		Grant: access.Grant{Minutes: b.Minutes, GrantsLifetimeAccess: b.GrantsLifetimeAccess, RevokesLifetimeAccess: b.RevokesLifetimeAccess}})
	if err != nil {
		return err
	}
	out := wire.IssuedLicenses{Licenses: make([]wire.License, len(ls))}
	for i := range ls {
		out.Licenses[i] = licenseView(&ls[i].License, ls[i].Code, nil)
	}
	httpx.WriteJSON(w, http.StatusCreated, out)
	return nil
}

// listLicenses serves GET /apps/{app}/licenses?used=&limit=&after=.
func listLicenses(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	q := r.URL.Query()
	if q.Has("code") {
		// A code in the URI would reach the admin endpoint's request log;
		// the code is not echoed here either.
		return access.Invalid(access.FieldError{Field: "code",
			Message: "is not accepted in the URI; POST {\"code\": \"...\"} to " + r.URL.Path + "/lookup"})
	}
	var used *bool
	switch q.Get("used") {
	case "":
	case "true", "false":
		u := q.Get("used") == "true"
		used = &u
	default:
		return access.Invalid(access.FieldError{Field: "used", Message: "must be true or false"})
	}
	page, err := pageQueryOf(r)
	if err != nil {
		return err
	}
	ls, next, err := svc.Licenses(r.Context(), r.PathValue("app"), used, page.after, page.limit)
	if err != nil {
		return err
	}
	return writePage(w, ls, next, licenseStatusView)
}

// lookupLicense serves POST /apps/{app}/licenses/lookup: the license with
// the code in the body.
func lookupLicense(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.LicenseLookup
	if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
		return err
	}
	if b.Code == "" {
		return access.Invalid(access.FieldError{Field: "code", Message: "is required"})
	}
	st, err := svc.LicenseByCode(r.Context(), r.PathValue("app"), b.Code)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, licenseStatusView(st))
	return nil
}

// showLicense serves GET /apps/{app}/licenses/{license}.
func showLicense(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	st, err := svc.LicenseOf(r.Context(), r.PathValue("app"), r.PathValue("license"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, licenseStatusView(st))
	return nil
}

// deleteLicense serves DELETE /apps/{app}/licenses/{license}.
func deleteLicense(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.DeleteLicense(r.Context(), r.PathValue("app"), r.PathValue("license")); err != nil {
		return err
	}
	return noContent(w)
}
