package adminapi_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/adminapi"
	"github.com/appaccess/appaccess/accessapi/adminapi/adminapitest"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

func TestBackup_AFolderTheServerCannotWriteIntoIsAProblemNamingIt(t *testing.T) {
	t.Parallel()
	s := adminapitest.NewOver(t, storetest.SQLite(t))
	ts := &testServer{t: t, url: s.URL + adminapi.DefaultPrefix, svc: s.Service, store: s.Store}
	tmp := t.TempDir()
	aFile := filepath.Join(tmp, "a-file")
	if err := os.WriteFile(aFile, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, dir, want string
	}{
		{"a folder that does not exist", filepath.Join(tmp, "missing", "deeper"), "does not exist"},
		{"a file where the folder should be", aFile, "is not a folder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := ts.do("POST", "/backup", nil, map[string]any{"path": filepath.Join(tt.dir, "copy.db")})
			if a.status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422; body %s", a.status, a.raw)
			}
			p := a.problem(t)
			if len(p.Errors) != 1 || p.Errors[0].Field != "path" || !strings.Contains(p.Errors[0].Message, tt.dir+" "+tt.want) {
				t.Fatalf("problem %+v: want the path field naming %s", p, tt.dir)
			}
		})
	}
}
