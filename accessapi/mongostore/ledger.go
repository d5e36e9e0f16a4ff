package mongostore

import (
	"context"
	"fmt"
	"time"

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
		if !isDuplicate(err) {
			return err
		}
	}
	return fmt.Errorf("ledger of user %s is full", a.UserID)
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
		out = append(out, access.Activation{ID: d.ActivationID, AppID: d.AppID, UserID: d.UserID,
			Type: access.ActivationType(d.Type), LicenseID: d.LicenseID, OccurredAt: d.OccurredAt.UTC(), Minutes: d.Minutes,
			GrantsLifetimeAccess: d.GrantsLifetimeAccess, RevokesLifetimeAccess: d.RevokesLifetimeAccess, Note: d.Note})
	}
	return out, nil
}

// DeleteLedger implements access.ActivationLedger.
func (s *Store) DeleteLedger(ctx context.Context, userID string) error {
	return s.deleteWhere(ctx, collLedger, bsonEq("user_id", userID))
}
