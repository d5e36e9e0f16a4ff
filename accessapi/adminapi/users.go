package adminapi

import (
	"context"
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// listUsers serves GET /apps/{app}/users?prefix=&username=&limit=&after=:
// users in username order (ignoring case), those whose name starts with
// prefix, or the one named username.
func listUsers(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	page, err := pageQueryOf(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	if name := q.Get("username"); name != "" {
		users, err := svc.Users(r.Context(), r.PathValue("app"), name, "", 1)
		if err != nil {
			return err
		}
		return writePage(w, users, "", userSummaryView)
	}
	p, err := svc.ListUsers(r.Context(), r.PathValue("app"), access.UserFilter{UsernamePrefix: q.Get("prefix")}, page.after, page.limit)
	if err != nil {
		return err
	}
	return writePage(w, p.Items, p.Next, userSummaryView)
}

// listActivations serves GET /apps/{app}/users/{user}/activations: the
// user's ledger, oldest first, a page at a time.
func listActivations(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	page, err := pageQueryOf(r)
	if err != nil {
		return err
	}
	p, err := svc.UserActivations(r.Context(), r.PathValue("app"), r.PathValue("user"), page.after, page.limit)
	if err != nil {
		return err
	}
	return writePage(w, p.Items, p.Next, ledgerEntryView)
}

// showUser serves GET /apps/{app}/users/{user}.
func showUser(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	d, err := svc.UserDetail(r.Context(), r.PathValue("app"), r.PathValue("user"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, userDetailView(d, svc.Now()))
	return nil
}

// userAction is a route that acts on one user and answers 204.
func userAction(act func(*access.Service, context.Context, string, string) error) route {
	return func(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
		if err := act(svc, r.Context(), r.PathValue("app"), r.PathValue("user")); err != nil {
			return err
		}
		return noContent(w)
	}
}

// banUser serves POST /apps/{app}/users/{user}/ban; the body is optional.
func banUser(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.BanRequest
	if r.ContentLength != 0 {
		if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
			return err
		}
	}
	if err := svc.BanUser(r.Context(), r.PathValue("app"), r.PathValue("user"), b.Reason); err != nil {
		return err
	}
	return noContent(w)
}

// grant serves POST /apps/{app}/users/{user}/grant.
func grant(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.GrantRequest
	if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
		return err
	}
	a, err := svc.GrantUser(r.Context(), r.PathValue("app"), r.PathValue("user"), access.GrantRequest{Note: b.Note,
		Grant: access.Grant{Minutes: b.Minutes, GrantsLifetimeAccess: b.GrantsLifetimeAccess, RevokesLifetimeAccess: b.RevokesLifetimeAccess}})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, ledgerEntryView(a))
	return nil
}

// resetPassword serves POST /apps/{app}/users/{user}/password: an
// administrator sets the user's password; the user's sessions end.
func resetPassword(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.PasswordReset
	if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
		return err
	}
	if err := svc.ResetPassword(r.Context(), r.PathValue("app"), r.PathValue("user"), b.Password); err != nil {
		return err
	}
	return noContent(w)
}
