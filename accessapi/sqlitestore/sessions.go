package sqlitestore

import (
	"context"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// InsertDevice implements access.DeviceStore: the (user, slot) key is the claim.
func (s *Store) InsertDevice(ctx context.Context, d *access.Device) error {
	_, err := s.exec(ctx, `INSERT INTO devices (user_id, slot, app_id, hardware_id, registered_at) VALUES (?, ?, ?, ?, ?)`,
		d.UserID, d.Slot, d.AppID, d.HardwareID, ms(d.RegisteredAt))
	return err
}

// DeviceInSlot implements access.DeviceStore.
func (s *Store) DeviceInSlot(ctx context.Context, userID string, slot int) (*access.Device, error) {
	d := access.Device{UserID: userID, Slot: slot}
	var at int64
	err := s.queryRow(ctx, `SELECT app_id, hardware_id, registered_at FROM devices WHERE user_id = ? AND slot = ?`,
		userID, slot).Scan(&d.AppID, &d.HardwareID, &at)
	if err != nil {
		return nil, mapErr(err)
	}
	d.RegisteredAt = fromMS(at)
	return &d, nil
}

// DeleteDevices implements access.DeviceStore.
func (s *Store) DeleteDevices(ctx context.Context, userID string) error {
	_, err := s.exec(ctx, `DELETE FROM devices WHERE user_id = ?`, userID)
	return err
}

// InsertSession implements access.SessionStore.
func (s *Store) InsertSession(ctx context.Context, x *access.Session) error {
	_, err := s.exec(ctx, `INSERT INTO sessions (token_hash, app_id, user_id, hardware_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
		x.TokenHash, x.AppID, x.UserID, x.HardwareID, ms(x.CreatedAt), ms(x.ExpiresAt))
	return err
}

// SessionByHash implements access.SessionStore.
func (s *Store) SessionByHash(ctx context.Context, tokenHash string) (*access.Session, error) {
	x := access.Session{TokenHash: tokenHash}
	var created, expires int64
	err := s.queryRow(ctx, `SELECT app_id, user_id, hardware_id, created_at, expires_at FROM sessions WHERE token_hash = ?`,
		tokenHash).Scan(&x.AppID, &x.UserID, &x.HardwareID, &created, &expires)
	if err != nil {
		return nil, mapErr(err)
	}
	x.CreatedAt, x.ExpiresAt = fromMS(created), fromMS(expires)
	return &x, nil
}

// UserSessions implements access.SessionStore, on sessions_by_user.
func (s *Store) UserSessions(ctx context.Context, userID string) ([]access.Session, error) {
	rows, err := s.query(ctx, `SELECT token_hash, app_id, hardware_id, created_at, expires_at FROM sessions
		WHERE user_id = ? ORDER BY created_at, rowid`, userID) // rowid: the order of insertion within a millisecond
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.Session
	for rows.Next() {
		x := access.Session{UserID: userID}
		var created, expires int64
		if err := rows.Scan(&x.TokenHash, &x.AppID, &x.HardwareID, &created, &expires); err != nil {
			return nil, mapErr(err)
		}
		x.CreatedAt, x.ExpiresAt = fromMS(created), fromMS(expires)
		out = append(out, x)
	}
	return out, mapErr(rows.Err())
}

// DeleteSession implements access.SessionStore.
func (s *Store) DeleteSession(ctx context.Context, tokenHash string) error {
	_, err := s.exec(ctx, `DELETE FROM sessions WHERE token_hash = ?`, tokenHash)
	return err
}

// DeleteUserSessions implements access.SessionStore.
func (s *Store) DeleteUserSessions(ctx context.Context, userID string) error {
	_, err := s.exec(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID)
	return err
}

// expiredBatch bounds one cleanup transaction, so the writer is never held
// for long.
const expiredBatch = 5000

// DeleteSessionsExpiredBefore implements access.SessionStore, in short
// batches on the expiry index.
func (s *Store) DeleteSessionsExpiredBefore(ctx context.Context, t time.Time) (int64, error) {
	var total int64
	for {
		res, err := s.exec(ctx, `DELETE FROM sessions WHERE token_hash IN
			(SELECT token_hash FROM sessions WHERE expires_at < ? LIMIT ?)`, ms(t), expiredBatch)
		if err != nil {
			return total, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, err
		}
		total += n
		if n < expiredBatch {
			return total, nil
		}
	}
}
