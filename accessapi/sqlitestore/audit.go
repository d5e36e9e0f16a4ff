package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

const auditColumns = `id, app_id, at, principal_kind, principal_name, action, user_id, target, before, after`

// AppendAudit implements access.AuditStore.
func (s *Store) AppendAudit(ctx context.Context, e *access.AuditEntry) error {
	_, err := s.exec(ctx, `INSERT INTO audit_log (`+auditColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.AppID, ms(e.At), e.Principal.Kind, e.Principal.Name, e.Action, e.UserID, e.Target,
		nullJSON(e.Before), nullJSON(e.After))
	return mapErr(err)
}

// AuditLog implements access.AuditStore: an ID range on (app_id, id), or
// on (app_id, action, id) or (app_id, user_id, id) with a filter.
func (s *Store) AuditLog(ctx context.Context, appID string, f access.AuditFilter, after string, limit int) ([]access.AuditEntry, error) {
	q, args := auditQuery(appID, f, after, limit)
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.AuditEntry
	for rows.Next() {
		var e access.AuditEntry
		var at int64
		var before, after sql.NullString
		if err := rows.Scan(&e.ID, &e.AppID, &at, &e.Principal.Kind, &e.Principal.Name, &e.Action, &e.UserID, &e.Target, &before, &after); err != nil {
			return nil, mapErr(err)
		}
		e.At = fromMS(at)
		if before.Valid {
			e.Before = json.RawMessage(before.String)
		}
		if after.Valid {
			e.After = json.RawMessage(after.String)
		}
		out = append(out, e)
	}
	return out, mapErr(rows.Err())
}

// auditQuery is the statement of a page of the audit log. It names the
// index of its filter: with an ID range on every index, SQLite would
// otherwise pick (app_id, id) and walk the range for the filter.
func auditQuery(appID string, f access.AuditFilter, after string, limit int) (string, []any) {
	index, cond := "audit_by_app", ""
	args := []any{appID}
	switch {
	case f.Action != "":
		index, cond = "audit_by_action", ` AND action = ?`
		args = append(args, f.Action)
	case f.UserID != "":
		index, cond = "audit_by_user", ` AND user_id = ?`
		args = append(args, f.UserID)
	}
	q := `SELECT ` + auditColumns + ` FROM audit_log INDEXED BY ` + index + ` WHERE app_id = ?` + cond + ` AND id > ?`
	args = append(args, after)
	// Both filters together use the action's index and check the user.
	if f.Action != "" && f.UserID != "" {
		q += ` AND +user_id = ?`
		args = append(args, f.UserID)
	}
	if !f.Since.IsZero() {
		q += ` AND id >= ?`
		args = append(args, access.AuditIDAt(f.Since))
	}
	if !f.Until.IsZero() {
		q += ` AND id < ?`
		args = append(args, access.AuditIDAt(f.Until))
	}
	return q + ` ORDER BY id LIMIT ?`, append(args, limit)
}

// DeleteAuditBefore implements access.AuditStore, in short batches on the
// primary key (the IDs of older entries are smaller).
func (s *Store) DeleteAuditBefore(ctx context.Context, t time.Time) (int64, error) {
	bound := access.AuditIDAt(t)
	var total int64
	for {
		res, err := s.exec(ctx, `DELETE FROM audit_log WHERE id IN
			(SELECT id FROM audit_log WHERE id < ? ORDER BY id LIMIT ?)`, bound, expiredBatch)
		if err != nil {
			return total, mapErr(err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, mapErr(err)
		}
		total += n
		if n < expiredBatch {
			return total, nil
		}
	}
}

// nullJSON stores an absent JSON value as NULL.
func nullJSON(v json.RawMessage) any {
	if v == nil {
		return nil
	}
	return string(v)
}

var _ access.AuditStore = (*Store)(nil)
