// Package clientapitest serves the real client API over the real store (a
// database of storetest) on an httptest server, for the tests and examples
// of the API's clients. Nothing here is a mock. A test binary that uses it
// calls storetest.Main from its TestMain.
package clientapitest

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/mongostore"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// CheapArgon2 keeps password hashing fast in tests.
var CheapArgon2 = access.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}

// Server is a running client API.
type Server struct {
	// URL is the server's root, http://127.0.0.1:port.
	URL string
	// Service is the service behind the API, for the fixtures the client
	// API cannot make (applications, licenses, files).
	Service *access.Service

	srv *httptest.Server
}

// New starts a server on a fresh database; it stops when the test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	s, err := Start(storetest.Database(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Start starts a server over db; Close stops it.
func Start(db *mongo.Database) (*Server, error) {
	store := mongostore.New(db)
	if err := store.EnsureIndexes(context.Background()); err != nil {
		return nil, fmt.Errorf("preparing the test database: %w", err)
	}
	key := bytes.Repeat([]byte{7}, access.FileKeySize)
	svc := access.NewService(store, access.Config{Argon2: CheapArgon2, FileKey: key})
	srv := httptest.NewServer(clientapi.NewHandler(svc, nil, nil))
	return &Server{URL: srv.URL, Service: svc, srv: srv}, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// CreateApp creates an application; settings.Name defaults to "test app".
func (s *Server) CreateApp(ctx context.Context, settings access.AppSettings) (*access.NewApp, error) {
	if settings.Name == nil {
		name := "test app"
		settings.Name = &name
	}
	return s.Service.CreateApp(ctx, settings)
}

// IssueCode issues one license code adding minutes.
func (s *Server) IssueCode(ctx context.Context, appID string, minutes int64) (string, error) {
	ls, err := s.Service.CreateLicenses(ctx, appID, access.LicenseRequest{Count: 1, Grant: access.Grant{Minutes: &minutes}})
	if err != nil {
		return "", err
	}
	return ls[0].Code, nil
}

// UploadFile stores a file of the application.
func (s *Server) UploadFile(ctx context.Context, appID, name string, content []byte) (*access.File, error) {
	return s.Service.UploadFile(ctx, appID, access.FileUpload{Name: name, MimeType: "application/octet-stream"}, bytes.NewReader(content))
}

// SetVariable sets an application variable.
func (s *Server) SetVariable(ctx context.Context, appID, name, value string) error {
	_, err := s.Service.SetVariable(ctx, appID, name, value)
	return err
}
