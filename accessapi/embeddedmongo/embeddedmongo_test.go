package embeddedmongo

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

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
