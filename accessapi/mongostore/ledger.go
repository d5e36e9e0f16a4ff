package mongostore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

// ledgerDoc is one ledger entry; its _id is "<user id>/<sequence>", so a
// user's ledger is read by _id alone and appended by a unique insert.
type ledgerDoc struct {
	ID                    string    `bson:"_id"`
	ActivationID          string    `bson:"activation_id"`
	AppID                 string    `bson:"app_id"`
	UserID                string    `bson:"user_id"`
	Type                  string    `bson:"type"`
	LicenseID             string    `bson:"license_id,omitempty"`
	OccurredAt            time.Time `bson:"occurred_at"`
	Minutes               *int64    `bson:"minutes"`
	GrantsLifetimeAccess  bool      `bson:"grants_lifetime_access"`
	RevokesLifetimeAccess bool      `bson:"revokes_lifetime_access"`
	Note                  string    `bson:"note,omitempty"`
}

// maxLedgerEntries bounds one user's ledger (and the reads it costs).
const maxLedgerEntries = 10000

func ledgerID(userID string, seq int) string { return fmt.Sprintf("%s/%06d", userID, seq) }

// AppendActivation implements access.ActivationLedger: it inserts at the
// first free sequence number; a taken one (a concurrent append) moves on.
func (s *Store) AppendActivation(ctx context.Context, a *access.Activation) error {
	entries, err := s.Ledger(ctx, a.UserID)
	if err != nil {
		return err
	}
	d := ledgerDoc{ActivationID: a.ID, AppID: a.AppID, UserID: a.UserID, Type: string(a.Type), LicenseID: a.LicenseID,
		OccurredAt: a.OccurredAt, Minutes: a.Minutes, GrantsLifetimeAccess: a.GrantsLifetimeAccess,
		RevokesLifetimeAccess: a.RevokesLifetimeAccess, Note: a.Note}
	for seq := len(entries); seq < maxLedgerEntries; seq++ {
		d.ID = ledgerID(a.UserID, seq)
		err := s.insert(ctx, collLedger, d)
		if isDuplicate(err) {
			continue
		}
		if err != nil {
			return err
		}
		return s.summarize(ctx, a.AppID, a.UserID)
	}
	return fmt.Errorf("ledger of user %s is full", a.UserID)
}

// membershipDoc summarises a user's membership for the count of active
// members. Entries is the length of the ledger it was folded from: a
// summary only replaces one folded from fewer entries, so concurrent
// appends leave the one of the longest ledger. (A crash between the ledger
// insert and this write leaves the summary one entry behind until the
// user's next append.)
type membershipDoc struct {
	ID         string     `bson:"_id"`
	AppID      string     `bson:"app_id"`
	IsLifetime bool       `bson:"is_lifetime"`
	ExpiresAt  *time.Time `bson:"expires_at"`
	Entries    int        `bson:"entries"`
}

// summarize writes the user's membership summary from the ledger. On
// MongoDB the conditional replace is atomic. A server whose updates are
// not (FerretDB, the test server) can let a summary of a shorter ledger
// overwrite a longer one, so each writer reads the summary back and writes
// again while it is behind the ledger as it is now (read again, not the one
// it summarised): whichever writer finishes last leaves a summary of the
// whole ledger.
func (s *Store) summarize(ctx context.Context, appID, userID string) error {
	for range 8 {
		ledger, err := s.Ledger(ctx, userID)
		if err != nil {
			return err
		}
		m := access.MembershipOf(ledger)
		d := membershipDoc{ID: userID, AppID: appID, IsLifetime: m.IsLifetime, ExpiresAt: m.ExpiresAt, Entries: len(ledger)}
		_, err = s.c(collMemberships).ReplaceOne(ctx,
			bson.D{{Key: "_id", Value: userID}, {Key: "entries", Value: bson.D{{Key: "$lt", Value: len(ledger)}}}},
			d, options.Replace().SetUpsert(true))
		if err = mapErr(err); err != nil && !isDuplicate(err) {
			return err // a duplicate means a summary of a longer ledger is there
		}
		var now membershipDoc
		if err := s.byID(ctx, collMemberships, userID, &now); err != nil {
			return err
		}
		if now.Entries >= len(ledger) {
			fresh, err := s.Ledger(ctx, userID)
			if err != nil {
				return err
			}
			if now.Entries >= len(fresh) {
				return nil
			}
		}
	}
	return fmt.Errorf("membership summary of user %s: concurrent writers keep overtaking", userID)
}

// Activations implements access.ActivationLedger: a range of _id; the
// cursor is the sequence number.
func (s *Store) Activations(ctx context.Context, userID, after string, limit int) (access.Page[access.Activation], error) {
	from := userID + "/"
	if after != "" {
		seq, err := strconv.Atoi(after)
		if err != nil {
			return access.Page[access.Activation]{}, nil // not a cursor of this listing: nothing after it
		}
		from = ledgerID(userID, seq)
	}
	filter := bsonEq("_id", bson.D{{Key: "$gt", Value: from}, {Key: "$lt", Value: userID + "/~"}})
	var docs []ledgerDoc
	opts := options.Find().SetSort(bsonEq("_id", 1)).SetLimit(int64(limit))
	if err := findAll(ctx, s.c(collLedger), filter, opts, &docs); err != nil {
		return access.Page[access.Activation]{}, err
	}
	p := access.Page[access.Activation]{Items: make([]access.Activation, len(docs))}
	for i := range docs {
		p.Items[i] = docs[i].activation()
	}
	if len(docs) == limit {
		_, seq, _ := strings.Cut(docs[len(docs)-1].ID, "/")
		p.Next = strings.TrimLeft(seq, "0")
		if p.Next == "" {
			p.Next = "0"
		}
	}
	return p, nil
}

func (d *ledgerDoc) activation() access.Activation {
	return access.Activation{ID: d.ActivationID, AppID: d.AppID, UserID: d.UserID,
		Type: access.ActivationType(d.Type), LicenseID: d.LicenseID, OccurredAt: d.OccurredAt.UTC(), Minutes: d.Minutes,
		GrantsLifetimeAccess: d.GrantsLifetimeAccess, RevokesLifetimeAccess: d.RevokesLifetimeAccess, Note: d.Note}
}

// Ledger implements access.ActivationLedger.
func (s *Store) Ledger(ctx context.Context, userID string) ([]access.Activation, error) {
	var out []access.Activation
	for seq := 0; seq < maxLedgerEntries; seq++ {
		var d ledgerDoc
		err := s.byID(ctx, collLedger, ledgerID(userID, seq), &d)
		if isNotFound(err) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, d.activation())
	}
	return out, nil
}

// DeleteLedger implements access.ActivationLedger.
func (s *Store) DeleteLedger(ctx context.Context, userID string) error {
	if err := s.deleteWhere(ctx, collLedger, bsonEq("user_id", userID)); err != nil {
		return err
	}
	return s.deleteByID(ctx, collMemberships, userID)
}
