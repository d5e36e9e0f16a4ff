// Package embeddedmongo runs an in-process MongoDB-compatible server (FerretDB
// with its SQLite backend), so that the MongoDB store's tests need no
// external server. Only package storetest imports it, and only tests import
// that, so FerretDB is not linked into the binary.
package embeddedmongo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

// maxUnixSocketPath is the portable limit for a Unix socket path (sun_path).
const maxUnixSocketPath = 100

// Server is a running embedded store.
type Server struct {
	uri    string
	cancel context.CancelFunc
	done   chan struct{}
	dir    string
	socket string
}

// Start starts an embedded store whose data lives in dir (created with 0700
// permissions if missing). It listens on a Unix socket inside dir, or on a
// random loopback port when the socket path would be too long.
// Logs go to logger; nil discards them.
func Start(dir string, logger *slog.Logger) (*Server, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("embedded store: data folder %q: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(abs, "sqlite"), 0o700); err != nil {
		return nil, fmt.Errorf("embedded store: creating data folder: %w", err)
	}

	listener := ferretdb.ListenerConfig{}
	socket := filepath.Join(abs, "mongodb.sock")
	if len(socket) <= maxUnixSocketPath {
		// A socket left over by a process that died is removed; a live one
		// means another process owns this data folder.
		if conn, err := net.DialTimeout("unix", socket, 200*time.Millisecond); err == nil {
			_ = conn.Close()
			return nil, fmt.Errorf("embedded store: data folder %s is in use by another process", abs)
		}
		_ = os.Remove(socket)
		listener.Unix = socket
	} else {
		socket = ""
		listener.TCP = "127.0.0.1:0"
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  listener,
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + filepath.ToSlash(filepath.Join(abs, "sqlite")) + "/",
	})
	if err != nil {
		return nil, fmt.Errorf("embedded store: %w", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{cancel: cancel, done: make(chan struct{}), dir: abs, socket: socket}
	go func() {
		defer close(s.done)
		_ = f.Run(ctx)
	}()
	// MongoDBURI blocks until the listener is bound.
	s.uri = f.MongoDBURI()
	return s, nil
}

// URI is the connection string of the running store.
func (s *Server) URI() string { return s.uri }

// Dir is the absolute data folder.
func (s *Server) Dir() string { return s.dir }

// Address is where the store listens: a socket path or a loopback address.
func (s *Server) Address() string {
	if s.socket != "" {
		return s.socket
	}
	return s.uri
}

// Stop stops the store and waits until its files are closed, or ctx ends.
func (s *Server) Stop(ctx context.Context) error {
	s.cancel()
	select {
	case <-s.done:
	case <-ctx.Done():
		return errors.New("embedded store: stop timed out")
	}
	if s.socket != "" {
		_ = os.Remove(s.socket)
	}
	return nil
}
