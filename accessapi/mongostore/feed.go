package mongostore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

// collChanges is the change feed; its _id is the entry's sequence number.
const collChanges = "changes"

// changeDoc is one change feed entry.
type changeDoc struct {
	Seq         int64     `bson:"_id"`
	At          time.Time `bson:"at"`
	Origin      string    `bson:"origin"`
	Kind        string    `bson:"kind"`
	AppID       string    `bson:"app_id,omitempty"`
	APIKey      string    `bson:"api_key,omitempty"`
	UserID      string    `bson:"user_id,omitempty"`
	SessionHash string    `bson:"session_hash,omitempty"`
}

func (d *changeDoc) change() access.Change {
	return access.Change{Seq: d.Seq, At: d.At.UTC(), Origin: d.Origin, Kind: access.EventKind(d.Kind), AppID: d.AppID,
		APIKey: d.APIKey, UserID: d.UserID, SessionHash: d.SessionHash}
}

// maxAppendAttempts bounds the slots one append tries before giving up.
const maxAppendAttempts = 1000

// AppendChange implements access.ChangeFeed. The entry claims the slot
// after the newest by a unique insert of its _id; a taken slot means
// another instance appended first, and the next one is tried. A slot is
// tried only once the one before it exists, so the feed has no gaps.
func (s *Store) AppendChange(ctx context.Context, c *access.Change) error {
	last, err := s.LastChange(ctx)
	if err != nil {
		return err
	}
	d := changeDoc{At: c.At, Origin: c.Origin, Kind: string(c.Kind), AppID: c.AppID, APIKey: c.APIKey, UserID: c.UserID, SessionHash: c.SessionHash}
	for range maxAppendAttempts {
		last++
		d.Seq = last
		err := s.insert(ctx, collChanges, d)
		if isDuplicate(err) {
			continue
		}
		if err != nil {
			return err
		}
		c.Seq = last
		return nil
	}
	return fmt.Errorf("appending a change: %d slots taken in a row", maxAppendAttempts)
}

// ChangesAfter implements access.ChangeFeed: the _id lookup of seq+1 (the
// one read when nothing changed, an index lookup on every server), then,
// only when it exists, an _id range read.
func (s *Store) ChangesAfter(ctx context.Context, seq int64, limit int) ([]access.Change, error) {
	var first changeDoc
	err := s.c(collChanges).FindOne(ctx, bsonEq("_id", seq+1)).Decode(&first)
	if err := mapErr(err); isNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if limit <= 1 {
		return []access.Change{first.change()}, nil
	}
	var docs []changeDoc
	if err := findAll(ctx, s.c(collChanges), bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: seq}}}},
		options.Find().SetSort(bsonEq("_id", 1)).SetLimit(int64(limit)), &docs); err != nil {
		return nil, err
	}
	out := make([]access.Change, 0, len(docs))
	for i := range docs {
		if docs[i].Seq != seq+1+int64(i) {
			break // cannot happen with gap-free appends; never skip one
		}
		out = append(out, docs[i].change())
	}
	return out, nil
}

// LastChange implements access.ChangeFeed, on the _id index.
func (s *Store) LastChange(ctx context.Context) (int64, error) {
	var d changeDoc
	err := mapErr(s.c(collChanges).FindOne(ctx, bson.D{}, options.FindOne().SetSort(bsonEq("_id", -1)).
		SetProjection(bsonEq("_id", 1))).Decode(&d))
	if isNotFound(err) {
		return 0, nil
	}
	return d.Seq, err
}

// DeleteChangesBefore implements access.ChangeFeed.
func (s *Store) DeleteChangesBefore(ctx context.Context, t time.Time) (int64, error) {
	last, err := s.LastChange(ctx)
	if err != nil || last == 0 {
		return 0, err
	}
	res, err := s.c(collChanges).DeleteMany(ctx, bson.D{
		{Key: "_id", Value: bson.D{{Key: "$lt", Value: last}}},
		{Key: "at", Value: bson.D{{Key: "$lt", Value: t}}},
	})
	if err != nil {
		return 0, mapErr(err)
	}
	return res.DeletedCount, nil
}

// UserState implements access.UserStateStore: the user, the ban and the
// ledger are read at once, on three connections (FerretDB has no $lookup
// to join them in one command), so the call costs the latency of its
// slowest read rather than the sum; the ledger is read 16 entries a
// request.
func (s *Store) UserState(ctx context.Context, userID string) (*access.User, *access.Ban, []access.Activation, error) {
	var (
		wg      sync.WaitGroup
		ban     *access.Ban
		ledger  []access.Activation
		banErr  error
		ledgErr error
	)
	wg.Go(func() {
		ban, banErr = s.BanOf(ctx, userID)
		if isNotFound(banErr) {
			ban, banErr = nil, nil
		}
	})
	wg.Go(func() { ledger, ledgErr = s.ledgerInBatches(ctx, userID) })
	u, err := s.UserByID(ctx, userID)
	wg.Wait()
	switch {
	case err != nil:
		return nil, nil, nil, err
	case banErr != nil:
		return nil, nil, nil, fmt.Errorf("reading ban: %w", banErr)
	case ledgErr != nil:
		return nil, nil, nil, fmt.Errorf("reading ledger: %w", ledgErr)
	}
	return u, ban, ledger, nil
}

// ledgerBatch is how many ledger entries one read asks for.
const ledgerBatch = 16

// ledgerInBatches reads a user's ledger like Ledger, asking for the _ids of
// ledgerBatch entries at a time ($in on _id: point lookups on the _id
// index) rather than one.
func (s *Store) ledgerInBatches(ctx context.Context, userID string) ([]access.Activation, error) {
	var out []access.Activation
	for from := 0; from < maxLedgerEntries; from += ledgerBatch {
		ids := make(bson.A, ledgerBatch)
		for i := range ids {
			ids[i] = ledgerID(userID, from+i)
		}
		var docs []ledgerDoc
		if err := findAll(ctx, s.c(collLedger), bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}, nil, &docs); err != nil {
			return nil, err
		}
		byID := make(map[string]*ledgerDoc, len(docs))
		for i := range docs {
			byID[docs[i].ID] = &docs[i]
		}
		for i := range ledgerBatch {
			d, ok := byID[ledgerID(userID, from+i)]
			if !ok {
				return out, nil // the ledger ends at its first missing entry
			}
			out = append(out, d.activation())
		}
	}
	return out, nil
}
