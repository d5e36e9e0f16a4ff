package adminapi_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestAdminAPI_UploadTakesAnExplicitMediaTypeElseDetectsIt(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	app := s.createApp(nil)
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	for _, tt := range []struct {
		name, file, query, contentType, body, want string
	}{
		{"curl --data-binary sends a form type", "notes.txt", "", "application/x-www-form-urlencoded", "hello", "text/plain; charset=utf-8"},
		{"no type: from the name", "notes.txt", "", "", "hello", "text/plain; charset=utf-8"},
		{"no type, no extension: from the content", "logo", "", "", png, "image/png"},
		{"no type, unknown extension: from the content", "page.zzq", "", "", "<html><body>hi</body></html>", "text/html; charset=utf-8"},
		{"Content-Type given", "data1.txt", "", "text/csv", "a,b", "text/csv"},
		{"mime_type given", "data2.txt", "application/json", "text/plain", "{}", "application/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := url.Values{"name": {tt.file}}
			if tt.query != "" {
				q.Set("mime_type", tt.query)
			}
			h := http.Header{}
			if tt.contentType != "" {
				h.Set("Content-Type", tt.contentType)
			}
			a := s.do("POST", "/apps/"+app.ID+"/files?"+q.Encode(), h, tt.body)
			if a.status != http.StatusCreated {
				t.Fatalf("status %d, body %s", a.status, a.raw)
			}
			f := decode[wire.Page[wire.FileInfo]](s, http.StatusOK, "GET", "/apps/"+app.ID+"/files", nil)
			for _, fi := range f.Items {
				if fi.Name == tt.file && fi.MimeType != tt.want {
					t.Fatalf("stored %q, want %q", fi.MimeType, tt.want)
				}
			}
		})
	}
}
