package sqlitestore_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/sqlitestore"
)

func TestOpen_SecondOpenOfAFolderIsRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sqlitestore.Open(dir)
	if err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("second Open: %v, want in use", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = sqlitestore.Open(dir)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	_ = s.Close()
}

func TestOpen_CreatesPrivateFolderAndFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	must(t, s.InsertApp(context.Background(), &access.App{ID: "a", APIKey: "k", CreatedAt: time.Now()}))
	db := filepath.Join(dir, sqlitestore.FileName)
	for path, want := range map[string]os.FileMode{dir: 0o700, db: 0o600, db + "-wal": 0o600, db + "-shm": 0o600, filepath.Join(dir, "app_access.lock"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", path, got, want)
		}
	}
}

// TestOpen_BadFileFailsWithOneLineAndOverwritesNothing opens files that are
// not this build's database and checks that Open fails with one line that
// names the file, leaving its bytes as they were.
func TestOpen_BadFileFailsWithOneLineAndOverwritesNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, path string)
		want  string
	}{
		{"text file", func(t *testing.T, path string) {
			writeFile(t, path, []byte("these are my notes, not a database\n"))
		}, "not an SQLite database"},
		{"corrupt database", func(t *testing.T, path string) {
			b := bytes.Repeat([]byte{0xA5}, 8192)
			copy(b, "SQLite format 3\x00")
			writeFile(t, path, b)
		}, ""},
		{"another program's database", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')`); err != nil {
				t.Fatal(err)
			}
		}, "another program"},
		{"newer schema version", func(t *testing.T, path string) {
			s, err := sqlitestore.Open(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d; PRAGMA journal_mode = DELETE`, sqlitestore.SchemaVersion+1)); err != nil {
				t.Fatal(err)
			}
		}, "newer than this build"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, sqlitestore.FileName)
			tc.write(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := sqlitestore.Open(dir)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.Contains(msg, path) || strings.Contains(msg, "\n") || !strings.Contains(msg, tc.want) {
				t.Fatalf("error %q: want one line naming %s and saying %q", msg, path, tc.want)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Fatal("Open changed the file")
			}
		})
	}
}

func TestOpen_UnwritableFolderFailsNamingIt(t *testing.T) {
	parent := t.TempDir()
	notDir := filepath.Join(parent, "file")
	writeFile(t, notDir, []byte("x"))
	readOnly := filepath.Join(parent, "ro")
	if err := os.Mkdir(readOnly, 0o500); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(notDir, "data"), readOnly} {
		if dir == readOnly && os.Geteuid() == 0 {
			continue // root writes anyway
		}
		_, err := sqlitestore.Open(dir)
		if err == nil || !strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("Open(%s): %v, want one line naming the folder", dir, err)
		}
	}
}

func TestRedeemLicense_FailedStepWritesNothing(t *testing.T) {
	s, err := sqlitestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	app := &access.App{ID: "app", Name: "a", APIKey: "k", SecretHash: "h", CreatedAt: time.Now()}
	must(t, s.InsertApp(ctx, app))
	minutes := int64(60)
	l := access.License{ID: "lic", AppID: app.ID, Grant: access.Grant{Minutes: &minutes}, CreatedAt: time.Now()}
	must(t, s.InsertLicenses(ctx, []access.License{l}))
	// The sign-up's username is taken: the account insert, after the
	// claim, fails.
	must(t, s.InsertAccount(ctx, &access.User{ID: "other", AppID: app.ID, Username: "user-1", CreatedAt: time.Now()}))
	use := &access.LicenseUse{LicenseID: l.ID, AppID: app.ID, UserID: "u1", Username: "user-1", ActivationID: "act", OccurredAt: time.Now(), SignUp: true}
	r := &access.Redemption{Use: use, Grant: l.Grant, NewUser: &access.User{ID: "u1", AppID: app.ID, Username: "user-1", CreatedAt: time.Now()},
		Activation: access.Activation{ID: "act", AppID: app.ID, UserID: "u1", Type: access.ActivationLicense, LicenseID: l.ID, OccurredAt: time.Now(), Minutes: &minutes}}
	err = s.RedeemLicense(ctx, r)
	if err == nil || errors.Is(err, access.ErrDuplicate) {
		t.Fatalf("RedeemLicense: %v, want a failure that is not ErrDuplicate", err)
	}
	if _, _, err := s.LicenseUseByID(ctx, l.ID); !errors.Is(err, access.ErrNotFound) {
		t.Fatalf("the claim is there after a failed redemption: %v", err)
	}
	c, err := s.AppCounts(ctx, app.ID, time.Now())
	must(t, err)
	if c != (access.AppCounts{Licenses: 1, LicensesUnused: 1}) {
		t.Fatalf("counts %+v after a failed redemption", c)
	}
	if ls, _ := s.Licenses(ctx, app.ID, access.LicenseFilter{Used: new(bool)}, "", 10); len(ls) != 1 {
		t.Fatalf("unused licenses %v, want the license", ls)
	}
}

// TestWrite_AcknowledgedWritesSurviveKill9 runs a writer in another
// process, kills it with SIGKILL while it writes, and checks that every
// write it reported done is in the database. While it runs, this process
// cannot open the folder.
func TestWrite_AcknowledgedWritesSurviveKill9(t *testing.T) {
	if dir := os.Getenv("SQLITESTORE_TEST_WRITER_DIR"); dir != "" {
		runWriter(dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWrite_AcknowledgedWritesSurviveKill9$")
	cmd.Env = append(os.Environ(), "SQLITESTORE_TEST_WRITER_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := -1
	sc := bufio.NewScanner(out)
	for sc.Scan() && acked < 200 {
		if n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "acked ")); err == nil {
			acked = n
		}
		if acked == 20 {
			if _, err := sqlitestore.Open(dir); err == nil || !strings.Contains(err.Error(), "in use by another process") {
				t.Errorf("Open while another process has the folder: %v", err)
			}
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if acked < 0 {
		t.Fatal("the writer acknowledged nothing")
	}
	s, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i <= acked; i++ {
		if _, err := s.AppByID(context.Background(), fmt.Sprintf("app-%d", i)); err != nil {
			t.Fatalf("acknowledged write %d of %d lost: %v", i, acked, err)
		}
	}
}

// runWriter inserts applications until killed, printing each one done.
func runWriter(dir string) {
	s, err := sqlitestore.Open(dir)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	for i := 0; ; i++ {
		a := &access.App{ID: fmt.Sprintf("app-%d", i), Name: "a", APIKey: fmt.Sprintf("k-%d", i), SecretHash: "h", CreatedAt: time.Now()}
		if err := s.InsertApp(context.Background(), a); err != nil {
			fmt.Println("insert:", err)
			os.Exit(1)
		}
		fmt.Printf("acked %d\n", i)
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestGroupCommit_AFailedWriteLeavesTheOthersOfItsBatch races writes that
// succeed with writes that fail on a taken key: whichever batches they
// share, every successful write is kept and every failed one reports
// ErrDuplicate.
func TestGroupCommit_AFailedWriteLeavesTheOthersOfItsBatch(t *testing.T) {
	s, err := sqlitestore.Open(t.TempDir())
	must(t, err)
	defer s.Close()
	ctx := context.Background()
	taken := &access.App{ID: "taken", Name: "a", APIKey: "taken", SecretHash: "h", CreatedAt: time.Now()}
	must(t, s.InsertApp(ctx, taken))
	errs := make([]error, 64)
	done := make(chan struct{})
	for i := range errs {
		go func() {
			defer func() { done <- struct{}{} }()
			a := &access.App{ID: fmt.Sprintf("app-%d", i), Name: "a", APIKey: fmt.Sprintf("key-%d", i), SecretHash: "h", CreatedAt: time.Now()}
			if i%2 == 1 {
				a.APIKey = "taken"
			}
			errs[i] = s.InsertApp(ctx, a)
		}()
	}
	for range errs {
		<-done
	}
	for i, err := range errs {
		_, getErr := s.AppByID(ctx, fmt.Sprintf("app-%d", i))
		switch {
		case i%2 == 0 && (err != nil || getErr != nil):
			t.Fatalf("write %d: %v, then read: %v", i, err, getErr)
		case i%2 == 1 && (!errors.Is(err, access.ErrDuplicate) || !errors.Is(getErr, access.ErrNotFound)):
			t.Fatalf("write %d with a taken key: %v, then read: %v", i, err, getErr)
		}
	}
	must(t, s.Close())
	if err := s.InsertApp(ctx, &access.App{ID: "late"}); err == nil {
		t.Fatal("a write after Close succeeded")
	}
}
