package dashboard

import (
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
)

// appSummary is one application on the home page.
type appSummary struct {
	App    access.App
	Counts access.AppCounts
	// Chart shows the last chartDays days' sign-ups and activations.
	Chart activityChart
}

// home serves GET /: every application with its counts and a chart of its
// sign-ups and activations per day.
func (s *Server) home(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	apps, err := si.svc.Apps(r.Context())
	if err != nil {
		return err
	}
	out := make([]appSummary, 0, len(apps))
	for _, a := range apps {
		c, err := si.svc.AppCounts(r.Context(), a.ID)
		if err != nil {
			return err
		}
		days, err := si.svc.ActivityByDay(r.Context(), a.ID, chartDays)
		if err != nil {
			return err
		}
		out = append(out, appSummary{App: a, Counts: c, Chart: newActivityChart(days)})
	}
	s.render(w, r, http.StatusOK, "home", page{Title: "Applications", Data: out})
	return nil
}

// createApp serves POST /apps: the new application's secret is shown on
// this answer only.
func (s *Server) createApp(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	name := r.PostFormValue("name")
	created, err := si.svc.CreateApp(r.Context(), access.AppSettings{Name: &name})
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusCreated, "app", page{Title: created.Name, App: &created.App,
		Notice: "Application created. Copy its secret now: it is not shown again.", Data: appPage{Secret: created.APISecret}})
	return nil
}
