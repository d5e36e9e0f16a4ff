package caddymodule

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/adminapi/adminapitest"
	"github.com/appaccess/appaccess/accessapi/sqlitestore"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/storetest/conformance"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// runCommandSplit runs caddy app-access with input on the standard input
// and returns the standard output and error apart.
func runCommandSplit(t *testing.T, input []byte, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := &cobra.Command{Use: "app-access", SilenceErrors: true}
	newCLI(bytes.NewReader(input), &out).build(root)
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errOut)
	err = root.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// sortedRecords are an export's lines but the end record, sorted.
func sortedRecords(data []byte) []string {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	lines = slices.Clone(lines[:len(lines)-1])
	slices.Sort(lines)
	return lines
}

func TestCommand_ExportImportMovesEveryRecordSQLiteToMongoToSQLite(t *testing.T) {
	isolate(t)
	source := storetest.SQLite(t)
	conformance.Populate(t, source)
	want := conformance.Export(t, source)
	a := adminapitest.NewOver(t, source)
	b := newCmdServer(t) // MongoDB protocol
	dest := storetest.SQLite(t)
	c := adminapitest.NewOver(t, dest)

	file := filepath.Join(t.TempDir(), "store.jsonl")
	_, progress, err := runCommandSplit(t, nil, "--address", a.Addr, "export", file)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	if !strings.Contains(progress, "exported") || !strings.Contains(progress, "records") {
		t.Fatalf("no progress line on stderr: %q", progress)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("export file: %v, want mode 0600", err)
	}
	out, progress, err := runCommandSplit(t, nil, "--address", b.Addr, "import", file)
	if err != nil {
		t.Fatalf("import into MongoDB: %v", err)
	}
	if !strings.Contains(out, "license ") || !strings.Contains(progress, "sent") {
		t.Fatalf("import printed %q, progress %q", out, progress)
	}
	viaMongo, _, err := runCommandSplit(t, nil, "--address", b.Addr, "export")
	if err != nil {
		t.Fatalf("export to the standard output: %v", err)
	}
	if _, _, err := runCommandSplit(t, []byte(viaMongo), "--address", c.Addr, "import"); err != nil {
		t.Fatalf("import from the standard input: %v", err)
	}
	got := conformance.Export(t, dest)
	if !slices.Equal(sortedRecords(got), sortedRecords(want)) {
		t.Fatalf("after SQLite -> MongoDB -> SQLite the records differ (%d bytes, want %d)", len(got), len(want))
	}

	refusals := []struct {
		name  string
		input []byte
		want  string
	}{
		{"NonEmptyStoreIsRefused", want, "not empty"},
		{"TruncatedFileNamesItsLine", want[:len(want)/2], "line "},
	}
	for _, tc := range refusals {
		t.Run("Import_"+tc.name, func(t *testing.T) {
			target := a.Addr
			if tc.name != "NonEmptyStoreIsRefused" {
				target = adminapitest.NewOver(t, storetest.SQLite(t)).Addr
			}
			_, _, err := runCommandSplit(t, tc.input, "--address", target, "import")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("import: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestCommand_BackupCopiesTheSQLiteDatabaseAndPointsMongoToMongodump(t *testing.T) {
	isolate(t)
	source := storetest.SQLite(t)
	conformance.Populate(t, source)
	a := adminapitest.NewOver(t, source)
	dir := t.TempDir()
	path := filepath.Join(dir, "app_access.db")
	out := mustRun(t, "--address", a.Addr, "backup", path)
	if !strings.Contains(out, path) {
		t.Fatalf("backup printed %q", out)
	}
	restored, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if !bytes.Equal(conformance.Export(t, restored), conformance.Export(t, source)) {
		t.Fatal("the restored backup differs from the store")
	}
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name, addr, path, want string
	}{
		{"ExistingFileIsRefused", a.Addr, path, "exists"},
		{"MissingFolderIsNamed", a.Addr, filepath.Join(missing, "copy.db"), "the folder " + missing + " does not exist"},
		{"MongoDBPointsToMongodump", newCmdServer(t).Addr, path, "mongodump"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runCommand(t, "--address", tc.addr, "backup", tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("backup: %v (%s), want an error saying %q", err, out, tc.want)
			}
		})
	}
}

func TestCommand_BackupHelpRestoresWithoutTheOldWriteAheadLog(t *testing.T) {
	isolate(t)
	out := mustRun(t, "backup", "--help")
	// A crash leaves app_access.db-wal; SQLite replays it into a copy put
	// in its place, and the writes made after the backup come back.
	for _, want := range []string{"delete app_access.db-wal and app_access.db-shm", "file.key"} {
		if !strings.Contains(out, want) {
			t.Errorf("backup --help does not say %q:\n%s", want, out)
		}
	}
}

func TestCommand_ImportSummaryAlignsItsCounts(t *testing.T) {
	var out bytes.Buffer
	sum := &wire.ImportSummary{Records: map[string]int64{"app": 1, "webhook_delivery": 2, "webhook_attempt": 7, "license": 1000000}}
	if err := printImport(&out, sum); err != nil {
		t.Fatal(err)
	}
	column := -1
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		at := strings.LastIndex(line, " ") + 1
		if column >= 0 && at != column {
			t.Fatalf("the counts are not in one column:\n%s", out.String())
		}
		column = at
	}
}

func TestCommand_ProgressToAFileIsOneLineWithoutCarriageReturns(t *testing.T) {
	var log bytes.Buffer
	p := newProgress(&log, "exported")
	for range 3 {
		_, _ = p.Write([]byte(`{"type":"user"}` + "\n"))
	}
	p.finish()
	if got := log.String(); got != "exported 0.0 MB, 3 records\n" {
		t.Fatalf("progress written to a file: %q", got)
	}
}

func TestCommand_ImportOfAFileItCannotReadBlamesTheFileNotTheServer(t *testing.T) {
	isolate(t)
	s := adminapitest.New(t)
	out, err := runCommand(t, "import", t.TempDir(), "--address", s.Addr)
	if err == nil || !strings.Contains(err.Error(), "reading the export to import") || strings.Contains(err.Error(), "cannot reach") {
		t.Fatalf("error %v, want one about reading the file; printed\n%s", err, out)
	}
}
