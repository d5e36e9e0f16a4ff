package dashboard

import (
	"html/template"
	"net/http"
	"net/url"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// auditPage is the data of the audit log page: the filters as typed, the
// entries and the link to the next page.
type auditPage struct {
	Action, User, Since, Until string
	Items                      []access.AuditEntry
	// Next is the link to the next page: a query built by url.Values, so
	// safe as a URL.
	Next template.URL
}

// auditDay is how the page's date filters are typed (an HTML date input).
const auditDay = "2006-01-02"

// audit serves GET /apps/{app}/audit?action=&user=&since=&until=&after=:
// the application's audit log in time order, a page at a time. since and
// until are days (UTC); until includes its day.
func (s *Server) audit(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	app, err := si.svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	return s.auditLog(w, r, si, app)
}

// serverAudit serves GET /audit?action=&since=&until=&after=: the server's
// own audit log (administrators, sign-ins, export, import and backup).
func (s *Server) serverAudit(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	return s.auditLog(w, r, si, nil)
}

// auditLog renders a page of app's audit log, or the server's when app is
// nil.
func (s *Server) auditLog(w http.ResponseWriter, r *http.Request, si *signedIn, app *access.App) error {
	appID, title := access.ServerAuditLog, "Server audit log"
	if app != nil {
		appID, title = app.ID, "Audit log"
	}
	q := r.URL.Query()
	data := auditPage{Action: q.Get("action"), User: q.Get("user"), Since: q.Get("since"), Until: q.Get("until")}
	f := access.AuditFilter{Action: data.Action, UserID: data.User}
	var fields []access.FieldError
	var err error
	if data.Since != "" {
		if f.Since, err = time.Parse(auditDay, data.Since); err != nil {
			fields = append(fields, access.FieldError{Field: "since", Message: "must be a date (YYYY-MM-DD)"})
		}
	}
	if data.Until != "" {
		day, err := time.Parse(auditDay, data.Until)
		if err != nil {
			fields = append(fields, access.FieldError{Field: "until", Message: "must be a date (YYYY-MM-DD)"})
		}
		f.Until = day.AddDate(0, 0, 1)
	}
	if len(fields) > 0 {
		return access.Invalid(fields...)
	}
	pg, err := si.svc.AuditLog(r.Context(), appID, f, q.Get("after"), 50)
	if err != nil {
		return err
	}
	data.Items = pg.Items
	if pg.Next != "" {
		next := url.Values{"after": {pg.Next}}
		for k, v := range map[string]string{"action": data.Action, "user": data.User, "since": data.Since, "until": data.Until} {
			if v != "" {
				next.Set(k, v)
			}
		}
		data.Next = template.URL("?" + next.Encode())
	}
	s.render(w, r, http.StatusOK, "audit", page{Title: title, App: app, Data: data})
	return nil
}
