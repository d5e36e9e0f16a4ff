package caddymodule

import (
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
)

func TestCommand_UploadOfAFileItCannotReadBlamesTheFileNotTheServer(t *testing.T) {
	isolate(t)
	s := newCmdServer(t)
	name := "files"
	app := s.CreateApp(t, access.AppSettings{Name: &name})
	folder := t.TempDir() // opens, but cannot be read as a file
	out, err := runCommand(t, "files", "upload", "--app", app.ID, folder, "--address", s.Addr)
	if err == nil || !strings.Contains(err.Error(), "reading the file to upload") || strings.Contains(err.Error(), "cannot reach") {
		t.Fatalf("error %v, want one about reading the file; printed\n%s", err, out)
	}
	if listed := mustRun(t, "files", "list", "--app", app.ID, "--address", s.Addr); strings.Count(listed, "\n") != 1 {
		t.Fatalf("a failed upload stored a file:\n%s", listed)
	}
}
