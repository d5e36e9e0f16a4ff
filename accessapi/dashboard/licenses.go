package dashboard

import (
	"encoding/csv"
	"net/http"
	"strconv"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/spreadsheet"
)

// licensesPage is the data of the licenses page.
type licensesPage struct {
	Filter string
	Items  []access.LicenseStatus
	Next   string
	Found  *access.LicenseStatus
}

func usedFilter(v string) *bool {
	switch v {
	case "used":
		t := true
		return &t
	case "unused":
		f := false
		return &f
	}
	return nil
}

// licenses serves GET /apps/{app}/licenses?filter=used|unused&after=.
func (s *Server) licenses(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	app, err := si.svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	filter := r.URL.Query().Get("filter")
	items, next, err := si.svc.Licenses(r.Context(), app.ID, usedFilter(filter), r.URL.Query().Get("after"), 50)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "licenses", page{Title: "Licenses", App: app, Data: licensesPage{Filter: filter, Items: items, Next: next}})
	return nil
}

// generateLicenses serves POST /apps/{app}/licenses: the codes come back
// as a CSV download, their only showing.
func (s *Server) generateLicenses(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	count, err := strconv.Atoi(r.PostFormValue("count"))
	if err != nil {
		return access.Invalid(access.FieldError{Field: "count", Message: "must be a whole number"})
	}
	req := access.LicenseRequest{Count: count, Note: r.PostFormValue("note")}
	if r.PostFormValue("lifetime") == "on" {
		req.Grant.GrantsLifetimeAccess = true
	} else {
		m, err := strconv.ParseInt(r.PostFormValue("minutes"), 10, 64)
		if err != nil {
			return access.Invalid(access.FieldError{Field: "minutes", Message: "must be a whole number"})
		}
		req.Grant.Minutes = &m
	}
	issued, err := si.svc.CreateLicenses(r.Context(), r.PathValue("app"), req)
	if err != nil {
		return err
	}
	securityHeaders(w, newNonce())
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="licenses.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"code", "minutes", "lifetime", "note"})
	for _, l := range issued {
		minutes := ""
		if l.Grant.Minutes != nil {
			minutes = strconv.FormatInt(*l.Grant.Minutes, 10)
		}
		_ = cw.Write(spreadsheet.Row([]string{l.Code, minutes, strconv.FormatBool(l.Grant.GrantsLifetimeAccess), l.Note}))
	}
	cw.Flush()
	return nil
}

// searchLicense serves POST /apps/{app}/licenses/search: the code is in
// the body, never in a URL.
func (s *Server) searchLicense(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	app, err := si.svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	st, err := si.svc.LicenseByCode(r.Context(), app.ID, r.PostFormValue("code"))
	p := page{Title: "Licenses", App: app, Data: licensesPage{Found: st}}
	if err != nil {
		if access.CodeOf(err) != access.CodeNotFound {
			return err
		}
		p.Error = "No license has this code."
	}
	s.render(w, r, http.StatusOK, "licenses", p)
	return nil
}

// deleteLicense serves POST /apps/{app}/licenses/{license}/delete.
func (s *Server) deleteLicense(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if err := si.svc.DeleteLicense(r.Context(), r.PathValue("app"), r.PathValue("license")); err != nil {
		return err
	}
	return s.redirect(w, r, "/apps/"+r.PathValue("app")+"/licenses")
}
