// Package sqlitestore implements the access storage interfaces on SQLite
// (modernc.org/sqlite, pure Go): the single-machine default.
//
// One file in the data folder holds everything. It runs in WAL mode with
// synchronous=FULL, so a write that returned survives kill -9 and power
// loss. Writes go through one connection (BEGIN IMMEDIATE), reads through a
// pool of read-only connections that WAL never blocks. Every write is one
// short transaction; nothing slow (a password hash, a network read) runs
// while one is open. A lock file keeps a second process out.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/appaccess/appaccess/accessapi/access"
)

// FileName is the database file's name in the data folder.
const FileName = "app_access.db"

// lockName is the lock file's name in the data folder.
const lockName = "app_access.lock"

// Store is the SQLite implementation of access.Store.
type Store struct {
	path  string
	write *sql.DB // one connection, used by the writer goroutine only
	read  *sql.DB
	lock  io.Closer

	writes     chan *writeOp
	quit       chan struct{}
	writerDone chan struct{}
	closeOnce  sync.Once
	closeErr   error

	readStmts, writeStmts stmtCache
	toPrepare             map[string]bool // queries the writer met unprepared
}

var _ access.Store = (*Store)(nil)

// Open opens (creating it if needed) the database in folder dir, applies
// the migrations, and locks the folder against other processes. Every
// failure is one line that names the file.
func Open(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("data folder %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("data folder %s: %w", abs, err)
	}
	lock, err := lockFolder(filepath.Join(abs, lockName))
	if err != nil {
		return nil, fmt.Errorf("data folder %s: %w", abs, err)
	}
	path := filepath.Join(abs, FileName)
	s, err := open(path)
	if err != nil {
		_ = lock.Close()
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	s.lock = lock
	return s, nil
}

func open(path string) (*Store, error) {
	if err := checkFile(path); err != nil {
		return nil, err
	}
	// busy_timeout comes first, so the pragmas after it wait for a lock
	// rather than fail.
	common := "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)&_pragma=temp_store(MEMORY)"
	u := "file:" + (&url.URL{Path: path}).EscapedPath()
	write, err := sql.Open("sqlite", u+common+"&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	s := &Store{path: path, write: write}
	if err := s.migrate(context.Background()); err != nil {
		_ = write.Close()
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = write.Close()
		return nil, err
	}
	read, err := sql.Open("sqlite", u+common+"&_pragma=query_only(1)")
	if err != nil {
		_ = write.Close()
		return nil, err
	}
	n := max(4, runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	s.read = read
	s.writes, s.quit, s.writerDone = make(chan *writeOp), make(chan struct{}), make(chan struct{})
	go s.writer()
	return s, nil
}

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// checkFile refuses a file that is not an SQLite database, so that SQLite
// never writes over it; it creates a missing file with mode 0600.
func checkFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	switch {
	case n == 0 && (err == io.EOF):
		return nil // new, empty file
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return err
	case string(head[:n]) != sqliteHeader:
		return errors.New("not an SQLite database (refusing to touch it)")
	}
	return nil
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close waits for the write in progress, closes the database and releases
// the folder. Writes after Close fail; a second Close does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.quit)
		<-s.writerDone
		s.closeErr = errors.Join(s.readStmts.close(), s.writeStmts.close(), s.read.Close(), s.write.Close())
		if s.lock != nil {
			s.closeErr = errors.Join(s.closeErr, s.lock.Close())
		}
	})
	return s.closeErr
}

// mustAffect turns a statement that changed no row into ErrNotFound.
func mustAffect(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return access.ErrNotFound
	}
	return nil
}

// mapErr maps SQLite's errors to the access sentinels by result code.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return access.ErrNotFound
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
			return fmt.Errorf("%w: %v", access.ErrDuplicate, err)
		}
	}
	return err
}

// isBusy reports SQLite's "try again" result codes (primary code BUSY or
// LOCKED, with any extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
}

// boolInt is a bool as SQLite stores it.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
