package sqlitestore

import (
	"context"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// AppendChange implements access.ChangeFeed. Every write goes through the
// one writer, so sequence numbers become visible in order.
func (s *Store) AppendChange(ctx context.Context, c *access.Change) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO changes (at, origin, kind, app_id, api_key, user_id, session_hash)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq`, ms(c.At), c.Origin, string(c.Kind), c.AppID, c.APIKey, c.UserID, c.SessionHash).Scan(&c.Seq)
	})
}

// ChangesAfter implements access.ChangeFeed, on the primary key.
func (s *Store) ChangesAfter(ctx context.Context, seq int64, limit int) ([]access.Change, error) {
	rows, err := s.query(ctx, `SELECT seq, at, origin, kind, app_id, api_key, user_id, session_hash FROM changes
		WHERE seq > ? ORDER BY seq LIMIT ?`, seq, limit)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.Change
	for rows.Next() {
		var c access.Change
		var at int64
		var kind string
		if err := rows.Scan(&c.Seq, &at, &c.Origin, &kind, &c.AppID, &c.APIKey, &c.UserID, &c.SessionHash); err != nil {
			return nil, mapErr(err)
		}
		c.At, c.Kind = fromMS(at), access.EventKind(kind)
		if c.Seq != seq+1+int64(len(out)) {
			break // the entries after a gap are not this reader's to see
		}
		out = append(out, c)
	}
	return out, mapErr(rows.Err())
}

// LastChange implements access.ChangeFeed.
func (s *Store) LastChange(ctx context.Context) (int64, error) {
	var seq int64
	err := s.queryRow(ctx, `SELECT COALESCE(MAX(seq), 0) FROM changes`).Scan(&seq)
	return seq, mapErr(err)
}

// DeleteChangesBefore implements access.ChangeFeed; the newest entry stays.
func (s *Store) DeleteChangesBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := s.exec(ctx, `DELETE FROM changes WHERE at < ? AND seq < (SELECT MAX(seq) FROM changes)`, ms(t))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// UserState implements access.UserStateStore in one statement: the user,
// joined with the ban and the ledger entries (one row per entry).
func (s *Store) UserState(ctx context.Context, userID string) (*access.User, *access.Ban, []access.Activation, error) {
	rows, err := s.query(ctx, `SELECT u.id, u.app_id, u.username, u.created_at, b.reason, b.at,
		l.activation_id, l.app_id, l.type, l.license_id, l.occurred_at, l.minutes, l.grants_lifetime_access, l.revokes_lifetime_access, l.note
		FROM users u LEFT JOIN bans b ON b.user_id = u.id LEFT JOIN ledger l ON l.user_id = u.id
		WHERE u.id = ? ORDER BY l.seq`, userID)
	if err != nil {
		return nil, nil, nil, mapErr(err)
	}
	defer rows.Close()
	var (
		u      *access.User
		ban    *access.Ban
		ledger []access.Activation
	)
	for rows.Next() {
		var (
			x                             access.User
			created                       int64
			reason, actID, appID, typ     *string
			licenseID, note               *string
			banAt, occurred               *int64
			minutes                       *int64
			grantsLifetime, revokesLifetm *bool
		)
		if err := rows.Scan(&x.ID, &x.AppID, &x.Username, &created, &reason, &banAt,
			&actID, &appID, &typ, &licenseID, &occurred, &minutes, &grantsLifetime, &revokesLifetm, &note); err != nil {
			return nil, nil, nil, mapErr(err)
		}
		if u == nil {
			x.CreatedAt = fromMS(created)
			u = &x
			if reason != nil && banAt != nil {
				ban = &access.Ban{UserID: x.ID, Reason: *reason, At: fromMS(*banAt)}
			}
		}
		if actID == nil {
			continue // no ledger entry
		}
		a := access.Activation{ID: *actID, AppID: *appID, UserID: x.ID, Type: access.ActivationType(*typ),
			LicenseID: *licenseID, OccurredAt: fromMS(*occurred), Minutes: minutes,
			GrantsLifetimeAccess: *grantsLifetime, RevokesLifetimeAccess: *revokesLifetm, Note: *note}
		ledger = append(ledger, a)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, nil, mapErr(err)
	}
	if u == nil {
		return nil, nil, nil, access.ErrNotFound
	}
	return u, ban, ledger, nil
}
