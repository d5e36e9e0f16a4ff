package dashboard

import (
	"net/http"
	"strconv"

	"github.com/appaccess/appaccess/accessapi/access"
)

// usersPage is the data of the users page.
type usersPage struct {
	Prefix string
	Items  []access.User
	Next   string
}

// users serves GET /apps/{app}/users?prefix=&after=.
func (s *Server) users(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	app, err := si.svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	pg, err := si.svc.ListUsers(r.Context(), app.ID, access.UserFilter{UsernamePrefix: q.Get("prefix")}, q.Get("after"), 50)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "users", page{Title: "Users", App: app, Data: usersPage{Prefix: q.Get("prefix"), Items: pg.Items, Next: pg.Next}})
	return nil
}

// userPage is the data of a user's page.
type userPage struct {
	*access.UserDetail
	Active bool
}

// showUser serves GET /apps/{app}/users/{user}.
func (s *Server) showUser(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	app, err := si.svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	d, err := si.svc.UserDetail(r.Context(), app.ID, r.PathValue("user"))
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "user", page{Title: d.Username, App: app, Data: userPage{UserDetail: d, Active: d.Membership.IsActive(si.svc.Now())}})
	return nil
}

// userAction serves POST /apps/{app}/users/{user}/{verb}: ban, unban,
// reset_devices, end_sessions, grant and delete.
func (s *Server) userAction(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	ctx, appID, userID := r.Context(), r.PathValue("app"), r.PathValue("user")
	var err error
	switch r.PathValue("verb") {
	case "ban":
		err = si.svc.BanUser(ctx, appID, userID, r.PostFormValue("reason"))
	case "unban":
		err = si.svc.UnbanUser(ctx, appID, userID)
	case "reset_devices":
		err = si.svc.ResetDevices(ctx, appID, userID)
	case "end_sessions":
		err = si.svc.EndSessions(ctx, appID, userID)
	case "grant":
		req := access.GrantRequest{Note: r.PostFormValue("note")}
		if r.PostFormValue("lifetime") == "on" {
			req.GrantsLifetimeAccess = true
		} else {
			m, perr := strconv.ParseInt(r.PostFormValue("minutes"), 10, 64)
			if perr != nil {
				return access.Invalid(access.FieldError{Field: "minutes", Message: "must be a whole number"})
			}
			req.Minutes = &m
		}
		_, err = si.svc.GrantUser(ctx, appID, userID, req)
	case "delete":
		if err := si.svc.DeleteUser(ctx, appID, userID); err != nil {
			return err
		}
		return s.redirect(w, r, "/apps/"+appID+"/users")
	default:
		return access.Refusal(access.CodeNotFound, "There is no such action.")
	}
	if err != nil {
		return err
	}
	return s.redirect(w, r, "/apps/"+appID+"/users/"+userID)
}
