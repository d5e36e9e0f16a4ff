package sqlitestore_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/sqlitestore"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/storetest/conformance"
)

func TestBackup_RestoredCopyHoldsEveryRecordWhileWritesGoOn(t *testing.T) {
	ctx := context.Background()
	s := storetest.SQLite(t)
	conformance.Populate(t, s)
	want := conformance.Export(t, s)

	// Writes to another application go on during the copy.
	app := &access.App{ID: uuid.NewString(), Name: "busy", APIKey: uuid.NewString(), CreatedAt: time.Now()}
	if err := s.InsertApp(ctx, app); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var written atomic.Int64
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := s.InsertLicenses(ctx, []access.License{{ID: uuid.NewString(), AppID: app.ID, CreatedAt: time.Now()}}); err != nil {
				t.Error(err)
				return
			}
			written.Add(1)
		}
	})
	dir := t.TempDir()
	path := filepath.Join(dir, sqlitestore.FileName)
	err := s.Backup(ctx, path)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if written.Load() == 0 {
		t.Fatal("no write went on during the backup")
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v, mode %v, want 0600", err, fi.Mode().Perm())
	}

	restored, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatalf("opening the backup: %v", err)
	}
	defer restored.Close()
	if err := restored.DeleteApp(ctx, app.ID); err != nil {
		t.Fatal(err)
	}
	// The busy application's licenses are the only other records: every
	// record of the export before the backup is in the copy.
	got := conformance.Export(t, restored)
	for _, line := range bytes.SplitAfter(want, []byte("\n")) {
		if len(line) > 0 && !bytes.Contains(line, []byte(`"type":"end"`)) && !bytes.Contains(got, line) {
			t.Fatalf("the restored copy lacks %.200s", line)
		}
	}

	if err := s.Backup(ctx, path); !errors.Is(err, access.ErrBackupExists) {
		t.Fatalf("a backup over an existing file: %v, want ErrBackupExists", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Fatalf("a temporary file stayed: %s", e.Name())
		}
	}
}

func TestBackup_ACopyThatFailsQuickCheckIsNotKept(t *testing.T) {
	s := storetest.SQLite(t)
	conformance.Populate(t, s)
	defer sqlitestore.SetAfterCopy(func(tmp string) {
		// Garbage over every page but the first (the schema's root).
		f, err := os.OpenFile(tmp, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || fi.Size() < 3*4096 {
			t.Errorf("a copy of %v bytes: %v", fi.Size(), err)
			return
		}
		if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, int(fi.Size())-4096), 4096); err != nil {
			t.Error(err)
		}
	})()
	dir := t.TempDir()
	path := filepath.Join(dir, "copy.db")
	err := s.Backup(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "quick_check") {
		t.Fatalf("backup of a damaged copy: %v, want it refused by quick_check", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("left %v behind", left)
	}
}
