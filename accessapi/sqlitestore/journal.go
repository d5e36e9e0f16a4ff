package sqlitestore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// InsertJournal implements access.EventJournal.
func (s *Store) InsertJournal(ctx context.Context, r *access.JournalRecord) error {
	_, err := s.exec(ctx, `INSERT INTO event_journal (id, at, origin, events) VALUES (?, ?, ?, ?)`,
		r.ID, ms(r.At), r.Origin, r.Events)
	return err
}

// DeleteJournal implements access.EventJournal in one statement, whatever
// the number of IDs (they are passed as one JSON array).
func (s *Store) DeleteJournal(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("encoding journal IDs: %w", err)
	}
	_, err = s.exec(ctx, `DELETE FROM event_journal WHERE id IN (SELECT value FROM json_each(?))`, string(list))
	return err
}

// JournalBefore implements access.EventJournal on the (at, id) index.
func (s *Store) JournalBefore(ctx context.Context, t time.Time, limit int) ([]access.JournalRecord, error) {
	rows, err := s.query(ctx, `SELECT id, at, origin, events FROM event_journal WHERE at < ? ORDER BY at, id LIMIT ?`, ms(t), limit)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.JournalRecord
	for rows.Next() {
		var r access.JournalRecord
		var at int64
		if err := rows.Scan(&r.ID, &at, &r.Origin, &r.Events); err != nil {
			return nil, mapErr(err)
		}
		r.At = fromMS(at)
		out = append(out, r)
	}
	return out, mapErr(rows.Err())
}
