// Package storetest gives tests real stores: an SQLite store in a temporary
// folder, and a MongoDB-protocol database, the one at
// APP_ACCESS_TEST_MONGODB_URI when that is set, else an embedded FerretDB
// started once per test binary. Each call returns a fresh store, so tests
// stay independent. Nothing here is a mock. Only tests import this package,
// which keeps FerretDB out of the binary.
package storetest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/embeddedmongo"
	"github.com/appaccess/appaccess/accessapi/mongostore"
	"github.com/appaccess/appaccess/accessapi/sqlitestore"
)

// EnvURI names the variable that points the tests at an external server;
// the value "embedded" selects the embedded FerretDB instead.
const EnvURI = "APP_ACCESS_TEST_MONGODB_URI"

var shared struct {
	once   sync.Once
	err    error
	uri    string
	client *mongo.Client
	// The embedded server runs in a process of its own (process, stopped
	// by closing stdin), or in this one when that cannot be built (server).
	process *exec.Cmd
	stdin   io.WriteCloser
	server  *embeddedmongo.Server
	dir     string // the embedded server's data folder
}

// URI returns the connection string of the test server, starting the
// embedded one if needed.
func URI(tb testing.TB) string {
	tb.Helper()
	start()
	if shared.err != nil {
		tb.Fatalf("test store: %v", shared.err)
	}
	return shared.uri
}

func start() {
	shared.once.Do(func() {
		shared.uri = os.Getenv(EnvURI)
		if shared.uri == "" || shared.uri == "embedded" {
			shared.dir, shared.err = os.MkdirTemp("", "aa-store-")
			if shared.err != nil {
				return
			}
			if shared.uri, shared.err = startProcess(shared.dir); shared.err != nil {
				// No go command to build it with: run it in this process.
				shared.server, shared.err = embeddedmongo.Start(shared.dir, nil)
				if shared.err != nil {
					return
				}
				shared.uri = shared.server.URI()
			}
		}
		shared.client, shared.err = mongo.Connect(options.Client().ApplyURI(shared.uri))
		if shared.err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			shared.err = shared.client.Ping(ctx, nil)
		}
	})
}

// startEnv is the environment the test binary started with, taken before
// any TestMain points HOME and XDG_CACHE_HOME at a temporary folder: the go
// command that builds the server needs the real build and module caches.
var startEnv = os.Environ()

// startProcess builds the embedded server's command without the race
// detector (FerretDB instrumented runs several times slower, which made
// timing tests of the MongoDB store measure the instrumentation) and starts
// it on dir, returning its URI.
func startProcess(dir string) (string, error) {
	bin := filepath.Join(dir, "ferretserver")
	build := exec.Command("go", "build", "-o", bin, "github.com/appaccess/appaccess/accessapi/embeddedmongo/ferretserver")
	build.Env = startEnv
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the test server: %w: %s", err, out)
	}
	cmd := exec.Command(bin, "-dir", filepath.Join(dir, "data"))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return "", fmt.Errorf("starting the test server: %w", err)
	}
	shared.process, shared.stdin = cmd, stdin
	return strings.TrimSpace(line), nil
}

// stopProcess stops the embedded server's process: it exits when its
// standard input closes (also when this process dies without calling this).
func stopProcess() {
	_ = shared.stdin.Close()
	done := make(chan struct{})
	go func() {
		_ = shared.process.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = shared.process.Process.Kill()
		<-done
	}
}

// SQLite returns a new SQLite store in a temporary folder, closed when the
// test ends.
func SQLite(tb testing.TB) *sqlitestore.Store {
	tb.Helper()
	s, err := sqlitestore.Open(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// Mongo returns a MongoDB store over a new, empty database, with its
// indexes.
func Mongo(tb testing.TB) *mongostore.Store {
	tb.Helper()
	name := DatabaseName(tb)
	s := mongostore.New(shared.client.Database(name))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.EnsureIndexes(ctx); err != nil {
		tb.Fatal(err)
	}
	if shared.dir != "" {
		if err := embeddedmongo.IndexIDLookups(ctx, serverDataDir(), name); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// serverDataDir is the embedded server's data folder.
func serverDataDir() string {
	if shared.server != nil {
		return shared.server.Dir()
	}
	return filepath.Join(shared.dir, "data")
}

// Default returns the store tests run on: MongoDB when
// APP_ACCESS_TEST_MONGODB_URI is set, else SQLite.
func Default(tb testing.TB) access.Store {
	tb.Helper()
	if os.Getenv(EnvURI) != "" {
		return Mongo(tb)
	}
	return SQLite(tb)
}

var unsafeName = regexp.MustCompile(`[^a-zA-Z0-9_]+`)

// Database returns a new, empty database for this test, dropped when the
// test ends.
func Database(tb testing.TB) *mongo.Database {
	tb.Helper()
	return shared.client.Database(DatabaseName(tb))
}

// DatabaseName returns the name of a new, empty database for this test on
// the server at URI, dropped when the test ends.
func DatabaseName(tb testing.TB) string {
	tb.Helper()
	URI(tb)
	name := unsafeName.ReplaceAllString(tb.Name(), "_")
	if len(name) > 40 {
		name = name[:40]
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	name = fmt.Sprintf("t_%s_%s", name, hex.EncodeToString(suffix))
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = shared.client.Database(name).Drop(ctx)
	})
	return name
}

// Main runs the tests of a package and then stops the embedded store; call
// it from TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	if shared.client != nil {
		_ = shared.client.Disconnect(context.Background())
	}
	if shared.process != nil {
		stopProcess()
	}
	if shared.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = shared.server.Stop(ctx)
		cancel()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	return code
}
