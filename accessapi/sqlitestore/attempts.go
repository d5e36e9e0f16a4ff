package sqlitestore

import (
	"context"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// AddFailure implements access.AttemptStore: one row per failure.
func (s *Store) AddFailure(ctx context.Context, key string, at time.Time) error {
	_, err := s.exec(ctx, `INSERT INTO failures (key, at) VALUES (?, ?)`, key, ms(at))
	return err
}

// Failures implements access.AttemptStore, on the (key, at) index.
func (s *Store) Failures(ctx context.Context, key string, since time.Time) (int, time.Time, error) {
	var n, last int64
	err := s.queryRow(ctx, `SELECT count(*), coalesce(max(at), 0) FROM failures WHERE key = ? AND at >= ?`, key, ms(since)).Scan(&n, &last)
	if err != nil {
		return 0, time.Time{}, mapErr(err)
	}
	if n == 0 {
		return 0, time.Time{}, nil
	}
	return int(n), fromMS(last), nil
}

// DeleteFailuresBefore implements access.AttemptStore.
func (s *Store) DeleteFailuresBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := s.exec(ctx, `DELETE FROM failures WHERE at < ?`, ms(t))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return n, mapErr(err)
}

// AddKnownSource implements access.AttemptStore; recording a source again
// for the same owner keeps the first time.
func (s *Store) AddKnownSource(ctx context.Context, key, source, owner string, at time.Time) error {
	_, err := s.exec(ctx, `INSERT INTO known_sources (key, source, owner, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		key, source, owner, ms(at))
	return err
}

// KnownSourceOwners implements access.AttemptStore.
func (s *Store) KnownSourceOwners(ctx context.Context, key, source string) ([]string, error) {
	rows, err := s.query(ctx, `SELECT owner FROM known_sources WHERE key = ? AND source = ?`, key, source)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var owners []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return nil, mapErr(err)
		}
		owners = append(owners, o)
	}
	return owners, mapErr(rows.Err())
}

var _ access.AttemptStore = (*Store)(nil)
