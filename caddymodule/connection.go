package caddymodule

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"go.uber.org/zap/zapcore"

	"github.com/appaccess/appaccess/accessapi/embeddedmongo"
)

// connections holds the MongoDB clients (and embedded stores) that outlive a
// config reload, keyed by connection settings. It is the package's only
// mutable state.
var connections = caddy.NewUsagePool()

// connection is one MongoDB client and, for the embedded store, the server
// it talks to.
type connection struct {
	client   *mongo.Client
	embedded *embeddedmongo.Server
}

// Destruct implements caddy.Destructor: it runs when the last config that
// used the connection has been cleaned up, after its requests drained.
func (c *connection) Destruct() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.client.Disconnect(ctx)
	if c.embedded != nil {
		if serr := c.embedded.Stop(ctx); serr != nil && err == nil {
			err = serr
		}
	}
	return err
}

// connectionKey identifies the settings a connection is shared under.
func connectionKey(uri, dataDir string) string {
	if uri != "" {
		return "uri:" + uri
	}
	return "embedded:" + dataDir
}

// openConnection returns the shared connection for these settings, creating
// it (and starting the embedded store) if no config holds one.
func openConnection(uri, dataDir string, logger *zap.Logger) (*connection, error) {
	v, _, err := connections.LoadOrNew(connectionKey(uri, dataDir), func() (caddy.Destructor, error) {
		c := &connection{}
		if uri == "" {
			srv, err := embeddedmongo.Start(dataDir, embeddedLogger(logger))
			if err != nil {
				return nil, err
			}
			c.embedded, uri = srv, srv.URI()
		}
		client, err := mongo.Connect(options.Client().ApplyURI(uri).SetAppName("app-access"))
		if err != nil {
			if c.embedded != nil {
				_ = c.embedded.Stop(context.Background())
			}
			return nil, fmt.Errorf("connecting to MongoDB: %w", err)
		}
		c.client = client
		return c, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*connection), nil
}

// embeddedLogger sends the embedded store's logs through Caddy's logger,
// at error level only: it is quiet unless something is wrong.
func embeddedLogger(logger *zap.Logger) *slog.Logger {
	core := logger.Named("embedded_store").Core()
	core = levelAtLeast{Core: core, min: zapcore.ErrorLevel}
	return slog.New(zapslog.NewHandler(core))
}

type levelAtLeast struct {
	zapcore.Core
	min zapcore.Level
}

func (l levelAtLeast) Enabled(lvl zapcore.Level) bool { return lvl >= l.min && l.Core.Enabled(lvl) }

func (l levelAtLeast) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if e.Level < l.min {
		return ce
	}
	return l.Core.Check(e, ce)
}

func (l levelAtLeast) With(f []zapcore.Field) zapcore.Core {
	return levelAtLeast{Core: l.Core.With(f), min: l.min}
}
