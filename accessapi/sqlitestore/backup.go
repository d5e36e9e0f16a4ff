package sqlitestore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/appaccess/appaccess/accessapi/access"
)

var _ access.Backuper = (*Store)(nil)

// Backup implements access.Backuper with VACUUM INTO: one read transaction
// (a snapshot, which WAL lets writers go on beside) copied into a new
// file next to path, checked with PRAGMA quick_check (checkCopy), then
// linked to path, so that path appears only complete and checked and
// never replaces a file. The copy is a compacted database that Open takes
// as it is.
func (s *Store) Backup(ctx context.Context, path string) error {
	path, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return &access.BackupFolderError{Dir: dir, Reason: "does not exist"}
	} else if err != nil {
		return folderError(dir, err)
	} else if !fi.IsDir() {
		return &access.BackupFolderError{Dir: dir, Reason: "is not a folder"}
	}
	if _, err := os.Lstat(path); err == nil {
		return access.ErrBackupExists
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+hex.EncodeToString(suffix)+".tmp")
	// An empty file of mode 0600 that VACUUM INTO fills keeps the mode.
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return folderError(dir, err)
	}
	_ = f.Close()
	defer os.Remove(tmp)

	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: s.path}).EscapedPath()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		return fmt.Errorf("copying the database: %w", err)
	}
	if afterCopy != nil {
		afterCopy(tmp)
	}
	if err := checkCopy(ctx, tmp); err != nil {
		return err
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return access.ErrBackupExists
		}
		return err
	}
	return syncFile(filepath.Dir(path))
}

// afterCopy, when not nil, is given the copy before it is checked (tests
// damage it).
var afterCopy func(tmp string)

// checkCopy runs PRAGMA quick_check on a backup's copy, on a read-only
// connection of its own: a copy that fails it is not kept. quick_check
// reads every page (about 1.1 s for a database of 1,000,000 licenses and
// 333,334 users, 740 MiB; see docs/design.md), which is why it runs here
// and not at every start.
func checkCopy(ctx context.Context, tmp string) error {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: tmp}).EscapedPath()+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return fmt.Errorf("checking the copy (PRAGMA quick_check): %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("checking the copy (PRAGMA quick_check): %w", err)
		}
		if line != "ok" && len(problems) < 3 {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("checking the copy (PRAGMA quick_check): %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("the copy failed PRAGMA quick_check (nothing was kept): %s", strings.Join(problems, "; "))
	}
	return nil
}

// folderError is a BackupFolderError for a folder the server may not
// use, else err.
func folderError(dir string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return &access.BackupFolderError{Dir: dir, Reason: "cannot be written by the server (permission denied)"}
	}
	return err
}

// syncFile flushes a file or folder to stable storage.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
