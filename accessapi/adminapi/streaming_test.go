package adminapi_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminapi"
	"github.com/appaccess/appaccess/accessapi/adminapi/adminapitest"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// dribble sends data a few bytes at a time, so that sending it takes
// about d.
func dribble(data []byte, d time.Duration) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		const chunks = 10
		step := (len(data) + chunks - 1) / chunks
		for len(data) > 0 {
			n := min(step, len(data))
			if _, err := pw.Write(data[:n]); err != nil {
				return
			}
			data = data[n:]
			time.Sleep(d / chunks)
		}
		pw.Close()
	}()
	return pr
}

func TestAdminAPI_StreamingBodiesOutlastTheServersReadTimeout(t *testing.T) {
	t.Parallel()
	const readTimeout = 200 * time.Millisecond
	for _, tt := range []struct {
		name string
		path func(app string) string
		body func(t *testing.T, svc *access.Service) []byte
		want int
	}{
		{"a file upload", func(app string) string { return "/apps/" + app + "/files?name=slow.bin" },
			func(*testing.T, *access.Service) []byte { return bytes.Repeat([]byte("x"), 4096) }, http.StatusCreated},
		{"an import", func(string) string { return "/import" },
			func(t *testing.T, _ *access.Service) []byte {
				// An export of another, empty store.
				var buf bytes.Buffer
				other := access.NewService(storetest.SQLite(t), access.Config{Argon2: adminapitest.CheapArgon2})
				if _, err := other.Export(context.Background(), &buf, nil); err != nil {
					t.Fatal(err)
				}
				return buf.Bytes()
			}, http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc := access.NewService(storetest.SQLite(t), access.Config{Argon2: adminapitest.CheapArgon2})
			srv := httptest.NewUnstartedServer(adminapi.NewHandler("", func() (*access.Service, error) { return svc, nil }, nil))
			srv.Config.ReadTimeout = readTimeout
			srv.Start()
			t.Cleanup(srv.Close)
			app := ""
			if tt.want == http.StatusCreated {
				name := "slow"
				a, err := svc.CreateApp(context.Background(), access.AppSettings{Name: &name})
				if err != nil {
					t.Fatal(err)
				}
				app = a.App.ID
			}
			body := tt.body(t, svc)
			req, err := http.NewRequest("POST", srv.URL+tt.path(app), dribble(body, 5*readTimeout))
			if err != nil {
				t.Fatal(err)
			}
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatalf("a body sent in %v to a server that reads for %v: %v", 5*readTimeout, readTimeout, err)
			}
			defer res.Body.Close()
			raw, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.want {
				t.Fatalf("a body sent in %v to a server that reads for %v: status %d, want %d; body %s", 5*readTimeout, readTimeout, res.StatusCode, tt.want, raw)
			}
		})
	}
}
