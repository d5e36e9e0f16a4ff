package embeddedmongo

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func TestStart_KeepsDataAcrossRestartsAndRefusesASecondOwner(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	write := func(s *Server, op func(*mongo.Collection) error) {
		t.Helper()
		c, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Disconnect(ctx)
		if err := op(c.Database("d").Collection("c")); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Start(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Address(), dir) {
		t.Fatalf("listens on %s, want a socket in %s", s.Address(), dir)
	}
	if _, err := Start(dir, nil); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a second store on the same folder started: %v", err)
	}
	write(s, func(c *mongo.Collection) error {
		_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "kept"}})
		return err
	})
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	s, err = Start(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(ctx)
	write(s, func(c *mongo.Collection) error {
		return c.FindOne(ctx, bson.D{{Key: "_id", Value: "kept"}}).Err()
	})
}

func TestStart_FallsBackToLoopbackForLongPaths(t *testing.T) {
	dir := t.TempDir() + "/" + strings.Repeat("d", 120)
	s, err := Start(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	if !strings.Contains(s.URI(), "127.0.0.1:") {
		t.Fatalf("URI %s, want loopback", s.URI())
	}
}

func TestIndexIDLookups_MakesIDLookupsUseAnIndex(t *testing.T) {
	dir := t.TempDir()
	s, err := Start(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	defer s.Stop(ctx)
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(ctx)
	coll := c.Database("db").Collection("docs")
	docs := make([]any, 20000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("doc-%d", i)}, {Key: "v", Value: i}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	lookup := func() time.Duration {
		start := time.Now()
		for i := 0; i < 20; i++ {
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("doc-%d", i*997)}}).Err(); err != nil {
				t.Fatal(err)
			}
		}
		return time.Since(start) / 20
	}
	before := lookup()
	if err := s.IndexIDLookups(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if err := s.IndexIDLookups(ctx, "db"); err != nil {
		t.Fatalf("second call: %v", err)
	}
	after := lookup()
	// A scan of 20,000 documents costs milliseconds; an index lookup a
	// fraction of one. Demand a clear gap, not an exact figure.
	if after*3 > before {
		t.Fatalf("lookup took %v before and %v after indexing", before, after)
	}
	t.Logf("_id lookup in 20,000 documents: %v scanning, %v indexed", before, after)
}
