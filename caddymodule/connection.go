package caddymodule

import (
	"context"
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/sqlitestore"
)

// connections holds the MongoDB clients and SQLite stores that outlive a
// config reload, keyed by connection settings. It is the package's only
// mutable state.
var connections = caddy.NewUsagePool()

// connection is one MongoDB client, or the SQLite store in a data folder.
type connection struct {
	client   *mongo.Client
	embedded *sqlitestore.Store // the embedded store, when there is no mongodb_uri
}

// Destruct implements caddy.Destructor: it runs when the last config that
// used the connection has been cleaned up, after its requests drained.
func (c *connection) Destruct() error {
	if c.embedded != nil {
		return c.embedded.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.client.Disconnect(ctx)
}

// connectionKey identifies the settings a connection is shared under.
func connectionKey(uri, dataDir string) string {
	if uri != "" {
		return "uri:" + uri
	}
	return "sqlite:" + dataDir
}

// openConnection returns the shared connection for these settings, creating
// it (connecting to MongoDB, or opening the SQLite store in dataDir) if no
// config holds one.
func openConnection(uri, dataDir string) (*connection, error) {
	v, _, err := connections.LoadOrNew(connectionKey(uri, dataDir), func() (caddy.Destructor, error) {
		if uri == "" {
			s, err := sqlitestore.Open(dataDir)
			if err != nil {
				return nil, err
			}
			return &connection{embedded: s}, nil
		}
		client, err := mongo.Connect(options.Client().ApplyURI(uri).SetAppName("app-access"))
		if err != nil {
			return nil, fmt.Errorf("connecting to MongoDB: %w", err)
		}
		return &connection{client: client}, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*connection), nil
}
