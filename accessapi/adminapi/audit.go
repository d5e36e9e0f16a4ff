package adminapi

import (
	"net/http"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// listAudit serves GET /apps/{app}/audit: the application's audit log in
// time order, a page at a time, filtered by ?action=, ?user= (a user ID),
// ?since= (inclusive) and ?until= (exclusive), both RFC 3339.
func listAudit(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	return writeAuditPage(w, r, svc, r.PathValue("app"))
}

// listServerAudit serves GET /audit: the server's own audit log
// (administrators, dashboard sign-ins, export, import and backup), with
// the filters of an application's.
func listServerAudit(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	return writeAuditPage(w, r, svc, access.ServerAuditLog)
}

// writeAuditPage answers with a page of the audit log of appID.
func writeAuditPage(w http.ResponseWriter, r *http.Request, svc *access.Service, appID string) error {
	page, err := pageQueryOf(r)
	if err != nil {
		return err
	}
	f, err := auditFilterOf(r)
	if err != nil {
		return err
	}
	p, err := svc.AuditLog(r.Context(), appID, f, page.after, page.limit)
	if err != nil {
		return err
	}
	return writePage(w, p.Items, p.Next, auditEntryView)
}

func auditFilterOf(r *http.Request) (access.AuditFilter, error) {
	q := r.URL.Query()
	f := access.AuditFilter{Action: q.Get("action"), UserID: q.Get("user")}
	var fields []access.FieldError
	for _, b := range []struct {
		name string
		t    *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		s := q.Get(b.name)
		if s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			fields = append(fields, access.FieldError{Field: b.name, Message: "must be an RFC 3339 time"})
			continue
		}
		*b.t = t
	}
	if len(fields) > 0 {
		return f, access.Invalid(fields...)
	}
	return f, nil
}

func auditEntryView(e *access.AuditEntry) wire.AuditEntry {
	v := wire.AuditEntry{ID: e.ID, Time: httpx.RFC3339(e.At),
		Principal: wire.Principal{Kind: e.Principal.Kind, Name: e.Principal.Name},
		Action:    e.Action, Target: e.Target, Before: e.Before, After: e.After}
	if e.AppID != access.ServerAuditLog {
		v.AppID = &e.AppID
	}
	if e.UserID != "" {
		v.UserID = &e.UserID
	}
	return v
}
