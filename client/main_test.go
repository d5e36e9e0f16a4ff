package client_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi/clientapitest"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// server is the real client API, over the real store, that the tests and
// examples of this package call.
var server *clientapitest.Server

func TestMain(m *testing.M) {
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	db, err := storetest.SharedDatabase("t_client_" + hex.EncodeToString(suffix))
	if err == nil {
		server, err = clientapitest.Start(db)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the test server:", err)
		os.Exit(1)
	}
	code := storetest.Main(m)
	server.Close()
	os.Exit(code)
}

// exampleApp creates an application, as `caddy app-access apps create`
// does, and returns its ID, key and secret.
func exampleApp(settings access.AppSettings) (id, key, secret string) {
	app, err := server.CreateApp(context.Background(), settings)
	if err != nil {
		panic(err)
	}
	return app.ID, app.APIKey, app.APISecret
}

// licenseCode issues a code of an hour, as `caddy app-access licenses
// create` does: the code a user bought.
func licenseCode(appID string) string {
	code, err := server.IssueCode(context.Background(), appID, 60)
	if err != nil {
		panic(err)
	}
	return code
}

// listen is a free loopback port, closed when the test ends.
func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}
