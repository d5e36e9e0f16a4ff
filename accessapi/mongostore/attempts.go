package mongostore

import (
	"context"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

// failureDoc is one failed attempt against a key: each failure is its own
// insert, so concurrent failures on several instances are all counted
// without an atomic update.
type failureDoc struct {
	ID  string    `bson:"_id"`
	Key string    `bson:"key"`
	At  time.Time `bson:"at"`
}

// AddFailure implements access.AttemptStore.
func (s *Store) AddFailure(ctx context.Context, key string, at time.Time) error {
	return s.insert(ctx, collFailures, failureDoc{ID: uuid.NewString(), Key: key, At: at})
}

// Failures implements access.AttemptStore, on the {key, at} index. The
// count is bounded: throttled attempts are not recorded, so a key gathers
// a few dozen failures per window at most.
func (s *Store) Failures(ctx context.Context, key string, since time.Time) (int, time.Time, error) {
	var docs []failureDoc
	filter := bson.D{{Key: "key", Value: key}, {Key: "at", Value: bson.D{{Key: "$gte", Value: since}}}}
	opts := options.Find().SetSort(bson.D{{Key: "key", Value: 1}, {Key: "at", Value: 1}}).SetProjection(bson.D{{Key: "at", Value: 1}})
	if err := findAll(ctx, s.c(collFailures), filter, opts, &docs); err != nil {
		return 0, time.Time{}, err
	}
	if len(docs) == 0 {
		return 0, time.Time{}, nil
	}
	return len(docs), docs[len(docs)-1].At.UTC(), nil
}

// DeleteFailuresBefore implements access.AttemptStore.
func (s *Store) DeleteFailuresBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := s.c(collFailures).DeleteMany(ctx, bson.D{{Key: "at", Value: bson.D{{Key: "$lt", Value: t}}}})
	if err != nil {
		return 0, mapErr(err)
	}
	return res.DeletedCount, nil
}

// knownSourceDoc records that a source logged in to an account as an
// owner; its _id is "<key>/<source>/<owner>", so recording it again is a
// harmless duplicate, each owner's record is an insert of its own (no
// update, which FerretDB does not make atomic), and an account's source is
// read as a range of _id. Documents written before sources had owners
// ("<key>/<source>") are outside every such range: inert.
type knownSourceDoc struct {
	ID    string    `bson:"_id"`
	Owner string    `bson:"owner"`
	At    time.Time `bson:"at"`
}

// AddKnownSource implements access.AttemptStore.
func (s *Store) AddKnownSource(ctx context.Context, key, source, owner string, at time.Time) error {
	err := s.insert(ctx, collKnownSources, knownSourceDoc{ID: key + "/" + source + "/" + owner, Owner: owner, At: at})
	if isDuplicate(err) {
		return nil
	}
	return err
}

// KnownSourceOwners implements access.AttemptStore: the _ids from
// "<key>/<source>/" up to "<key>/<source>0" ('0' follows '/').
func (s *Store) KnownSourceOwners(ctx context.Context, key, source string) ([]string, error) {
	prefix := key + "/" + source
	filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: prefix + "/"}, {Key: "$lt", Value: prefix + "0"}}}}
	var docs []knownSourceDoc
	if err := findAll(ctx, s.c(collKnownSources), filter, options.Find().SetProjection(bson.D{{Key: "owner", Value: 1}}), &docs); err != nil {
		return nil, err
	}
	owners := make([]string, 0, len(docs))
	for _, d := range docs {
		if d.ID == prefix+"/"+d.Owner { // not another key's or source's that has a '/'
			owners = append(owners, d.Owner)
		}
	}
	return owners, nil
}

var _ access.AttemptStore = (*Store)(nil)
