package dashboard

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
)

//go:embed templates/*.html templates/style.css
var templateFS embed.FS

// pageNames are the pages; each is parsed once with the layout.
var pageNames = []string{"signin", "home", "app", "licenses", "users", "user", "content", "keys", "webhooks", "webhook", "audit", "error"}

// views holds every page's parsed template.
type views struct {
	pages map[string]*template.Template
}

var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"whenp": func(t *time.Time) string {
		if t == nil {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
}

func parseViews() (*views, error) {
	css, err := templateFS.ReadFile("templates/style.css")
	if err != nil {
		return nil, err
	}
	f := template.FuncMap{"css": func() template.CSS { return template.CSS(css) }}
	for k, v := range funcs {
		f[k] = v
	}
	v := &views{pages: map[string]*template.Template{}}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(f).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("parsing dashboard page %s: %w", name, err)
		}
		v.pages[name] = t
	}
	return v, nil
}

// page is what every template gets.
type page struct {
	Title    string
	Nonce    string
	CSRF     string
	Prefix   string
	Username string
	App      *access.App
	Notice   string
	Error    string
	Data     any
}

// securityHeaders sets the headers of every dashboard answer.
func securityHeaders(w http.ResponseWriter, nonce string) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy(nonce))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
}

// render writes a page with status.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	p.Nonce, p.Prefix = newNonce(), s.cfg.Prefix
	if si := signedInFrom(r.Context()); si != nil {
		p.CSRF, p.Username = si.csrf, si.username
	}
	var buf bytes.Buffer
	if err := s.views.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		s.cfg.Logger.Error("rendering dashboard page", zap.String("page", name), zap.Error(err))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	securityHeaders(w, p.Nonce)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// renderError shows a refusal (its detail is safe to show) or, for any
// other error, a generic message after logging it.
func (s *Server) renderError(w http.ResponseWriter, r *http.Request, err error) {
	var e *access.Error
	if !errors.As(err, &e) {
		s.cfg.Logger.Error("dashboard request failed", zap.String("path", r.URL.Path), zap.Error(err))
		e = access.Refusal(access.CodeInternal, "An internal error occurred; it has been logged.")
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int(e.RetryAfter.Round(time.Second)/time.Second)))
	}
	s.render(w, r, httpx.StatusOf(e.Code), "error", page{Title: "Error", Error: e.Detail})
}
