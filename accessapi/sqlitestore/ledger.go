package sqlitestore

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/appaccess/appaccess/accessapi/access"
)

// AppendActivation implements access.ActivationLedger. An entry whose ID the
// user's ledger holds already is kept once. The user's membership summary
// is refolded in the same transaction.
func (s *Store) AppendActivation(ctx context.Context, a *access.Activation) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error { return appendActivation(ctx, tx, a) })
}

func appendActivation(ctx context.Context, tx *writeTx, a *access.Activation) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO ledger (activation_id, app_id, user_id, type, license_id, occurred_at, minutes,
		grants_lifetime_access, revokes_lifetime_access, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id, activation_id) DO NOTHING`,
		a.ID, a.AppID, a.UserID, string(a.Type), a.LicenseID, ms(a.OccurredAt), a.Minutes,
		boolInt(a.GrantsLifetimeAccess), boolInt(a.RevokesLifetimeAccess), a.Note)
	if err != nil {
		return err
	}
	ledger, err := queryLedger(ctx, tx, `WHERE user_id = ? ORDER BY seq`, a.UserID)
	if err != nil {
		return err
	}
	m := access.MembershipOf(ledger)
	var expires *int64
	if m.ExpiresAt != nil {
		v := ms(*m.ExpiresAt)
		expires = &v
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO memberships (user_id, app_id, is_lifetime, expires_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET is_lifetime = excluded.is_lifetime, expires_at = excluded.expires_at`,
		a.UserID, a.AppID, boolInt(m.IsLifetime), expires)
	return err
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

const ledgerColumns = `seq, activation_id, app_id, user_id, type, license_id, occurred_at, minutes, grants_lifetime_access, revokes_lifetime_access, note`

// queryLedger reads ledger entries; where is the rest of the statement.
func queryLedger(ctx context.Context, q querier, where string, args ...any) ([]access.Activation, error) {
	entries, _, err := queryLedgerSeq(ctx, q, where, args...)
	return entries, err
}

func queryLedgerSeq(ctx context.Context, q querier, where string, args ...any) ([]access.Activation, int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+ledgerColumns+` FROM ledger `+where, args...)
	if err != nil {
		return nil, 0, mapErr(err)
	}
	defer rows.Close()
	var out []access.Activation
	var seq int64
	for rows.Next() {
		var a access.Activation
		var typ string
		var at int64
		if err := rows.Scan(&seq, &a.ID, &a.AppID, &a.UserID, &typ, &a.LicenseID, &at, &a.Minutes,
			&a.GrantsLifetimeAccess, &a.RevokesLifetimeAccess, &a.Note); err != nil {
			return nil, 0, mapErr(err)
		}
		a.Type = access.ActivationType(typ)
		a.OccurredAt = fromMS(at)
		out = append(out, a)
	}
	return out, seq, mapErr(rows.Err())
}

// Ledger implements access.ActivationLedger.
func (s *Store) Ledger(ctx context.Context, userID string) ([]access.Activation, error) {
	return queryLedger(ctx, reads{s}, `WHERE user_id = ? ORDER BY seq`, userID)
}

// Activations implements access.ActivationLedger; the cursor is the
// ledger's sequence number.
func (s *Store) Activations(ctx context.Context, userID, after string, limit int) (access.Page[access.Activation], error) {
	var from int64
	if after != "" {
		var err error
		if from, err = strconv.ParseInt(after, 10, 64); err != nil {
			return access.Page[access.Activation]{}, nil // not a cursor of this listing: nothing after it
		}
	}
	items, last, err := queryLedgerSeq(ctx, reads{s}, `WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT ?`, userID, from, limit)
	p := access.Page[access.Activation]{Items: items}
	if len(items) == limit {
		p.Next = strconv.FormatInt(last, 10)
	}
	return p, err
}

// DeleteLedger implements access.ActivationLedger.
func (s *Store) DeleteLedger(ctx context.Context, userID string) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM ledger WHERE user_id = ?`, userID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM memberships WHERE user_id = ?`, userID)
		return err
	})
}
