package mongostore

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

// collJournal is the event journal, one document per record by its ID,
// read by the index {at, _id}.
const collJournal = "event_journal"

// journalDoc is one record of the event journal.
type journalDoc struct {
	ID     string    `bson:"_id"`
	At     time.Time `bson:"at"`
	Origin string    `bson:"origin"`
	Events []byte    `bson:"events"`
}

// InsertJournal implements access.EventJournal: one insert on a unique _id.
func (s *Store) InsertJournal(ctx context.Context, r *access.JournalRecord) error {
	return s.insert(ctx, collJournal, journalDoc{ID: r.ID, At: r.At, Origin: r.Origin, Events: r.Events})
}

// DeleteJournal implements access.EventJournal in one call ($in on _id).
func (s *Store) DeleteJournal(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.c(collJournal).DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
	return mapErr(err)
}

// JournalBefore implements access.EventJournal on the index {at, _id}.
func (s *Store) JournalBefore(ctx context.Context, t time.Time, limit int) ([]access.JournalRecord, error) {
	opts := options.Find().SetSort(bson.D{{Key: "at", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(int64(limit)).
		SetHint(bson.D{{Key: "at", Value: 1}, {Key: "_id", Value: 1}})
	var docs []journalDoc
	if err := findAll(ctx, s.c(collJournal), bson.D{{Key: "at", Value: bson.D{{Key: "$lt", Value: t}}}}, opts, &docs); err != nil {
		return nil, err
	}
	out := make([]access.JournalRecord, len(docs))
	for i, d := range docs {
		out[i] = access.JournalRecord{ID: d.ID, At: d.At.UTC(), Origin: d.Origin, Events: d.Events}
	}
	return out, nil
}
