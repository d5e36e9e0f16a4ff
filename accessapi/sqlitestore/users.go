package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/appaccess/appaccess/accessapi/access"
)

// InsertAccount implements access.UserStore.
func (s *Store) InsertAccount(ctx context.Context, u *access.User) error {
	_, err := s.exec(ctx, `INSERT INTO accounts (app_id, username_key, user_id, username, password_hash, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, u.AppID, access.UsernameKey(u.Username), u.ID, u.Username, u.PasswordHash, ms(u.CreatedAt))
	return err
}

// AccountByName implements access.UserStore.
func (s *Store) AccountByName(ctx context.Context, appID, usernameKey string) (*access.User, error) {
	u := access.User{AppID: appID}
	var created int64
	err := s.queryRow(ctx, `SELECT user_id, username, password_hash, created_at FROM accounts
		WHERE app_id = ? AND username_key = ?`, appID, usernameKey).Scan(&u.ID, &u.Username, &u.PasswordHash, &created)
	if err != nil {
		return nil, mapErr(err)
	}
	u.CreatedAt = fromMS(created)
	return &u, nil
}

// DeleteAccount implements access.UserStore.
func (s *Store) DeleteAccount(ctx context.Context, appID, usernameKey string) error {
	_, err := s.exec(ctx, `DELETE FROM accounts WHERE app_id = ? AND username_key = ?`, appID, usernameKey)
	return err
}

// SetAccountPassword implements access.UserStore.
func (s *Store) SetAccountPassword(ctx context.Context, appID, usernameKey, passwordHash string) error {
	return mustAffect(s.exec(ctx, `UPDATE accounts SET password_hash = ? WHERE app_id = ? AND username_key = ?`,
		passwordHash, appID, usernameKey))
}

// UpgradeAccountPassword implements access.UserStore.
func (s *Store) UpgradeAccountPassword(ctx context.Context, appID, usernameKey, oldHash, newHash string) error {
	return mustAffect(s.exec(ctx, `UPDATE accounts SET password_hash = ? WHERE app_id = ? AND username_key = ? AND password_hash = ?`,
		newHash, appID, usernameKey, oldHash))
}

// InsertUser implements access.UserStore.
func (s *Store) InsertUser(ctx context.Context, u *access.User) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error { return insertUser(ctx, tx, u) })
}

func insertUser(ctx context.Context, tx *writeTx, u *access.User) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO users (id, app_id, username, username_key, created_at) VALUES (?, ?, ?, ?, ?)`,
		u.ID, u.AppID, u.Username, access.UsernameKey(u.Username), ms(u.CreatedAt)); err != nil {
		return err
	}
	return count(ctx, tx, u.AppID, "users", 1)
}

const userColumns = `id, app_id, username, created_at`

func scanUser(row interface{ Scan(...any) error }) (*access.User, error) {
	var u access.User
	var created int64
	if err := row.Scan(&u.ID, &u.AppID, &u.Username, &created); err != nil {
		return nil, mapErr(err)
	}
	u.CreatedAt = fromMS(created)
	return &u, nil
}

// UserByID implements access.UserStore.
func (s *Store) UserByID(ctx context.Context, userID string) (*access.User, error) {
	return scanUser(s.queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, userID))
}

// Users implements access.UserStore on the (app_id, username_key, id) index.
// The range starts at the later of the prefix and the cursor, so a page
// never walks the users before it.
func (s *Store) Users(ctx context.Context, appID, prefix string, after access.UserCursor, limit int) ([]access.User, error) {
	from := max(prefix, after.UsernameKey)
	rows, err := s.query(ctx, `SELECT `+userColumns+` FROM users
		WHERE app_id = ? AND username_key >= ? AND username_key < ? AND (username_key, id) > (?, ?)
		ORDER BY username_key, id LIMIT ?`, appID, from, access.PrefixEnd(prefix), after.UsernameKey, after.UserID, limit)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *u)
	}
	return out, mapErr(rows.Err())
}

// DeleteUser implements access.UserStore; what belongs to the user goes
// with it.
func (s *Store) DeleteUser(ctx context.Context, userID string) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		var appID string
		err := tx.QueryRowContext(ctx, `DELETE FROM users WHERE id = ? RETURNING app_id`, userID).Scan(&appID)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		return count(ctx, tx, appID, "users", -1)
	})
}

// MarkUserDeleted implements access.UserStore.
func (s *Store) MarkUserDeleted(ctx context.Context, userID string) error {
	_, err := s.exec(ctx, `INSERT INTO deleted_users (user_id) VALUES (?) ON CONFLICT DO NOTHING`, userID)
	return err
}

// IsUserDeleted implements access.UserStore.
func (s *Store) IsUserDeleted(ctx context.Context, userID string) (bool, error) {
	var n int
	err := s.queryRow(ctx, `SELECT count(*) FROM deleted_users WHERE user_id = ?`, userID).Scan(&n)
	return n > 0, mapErr(err)
}

// InsertBan implements access.BanStore.
func (s *Store) InsertBan(ctx context.Context, b *access.Ban) error {
	_, err := s.exec(ctx, `INSERT INTO bans (user_id, reason, at) VALUES (?, ?, ?)`, b.UserID, b.Reason, ms(b.At))
	return err
}

// BanOf implements access.BanStore.
func (s *Store) BanOf(ctx context.Context, userID string) (*access.Ban, error) {
	b := access.Ban{UserID: userID}
	var at int64
	if err := s.queryRow(ctx, `SELECT reason, at FROM bans WHERE user_id = ?`, userID).Scan(&b.Reason, &at); err != nil {
		return nil, mapErr(err)
	}
	b.At = fromMS(at)
	return &b, nil
}

// DeleteBan implements access.BanStore.
func (s *Store) DeleteBan(ctx context.Context, userID string) error {
	_, err := s.exec(ctx, `DELETE FROM bans WHERE user_id = ?`, userID)
	return err
}

// RecordLogin implements access.LoginStore: the last write wins.
func (s *Store) RecordLogin(ctx context.Context, l *access.LastLogin) error {
	_, err := s.exec(ctx, `INSERT INTO last_logins (user_id, ip, at) VALUES (?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET ip = excluded.ip, at = excluded.at`, l.UserID, l.IP, ms(l.At))
	return err
}

// LastLoginOf implements access.LoginStore.
func (s *Store) LastLoginOf(ctx context.Context, userID string) (*access.LastLogin, error) {
	l := access.LastLogin{UserID: userID}
	var at int64
	if err := s.queryRow(ctx, `SELECT ip, at FROM last_logins WHERE user_id = ?`, userID).Scan(&l.IP, &at); err != nil {
		return nil, mapErr(err)
	}
	l.At = fromMS(at)
	return &l, nil
}

// DeleteLogin implements access.LoginStore.
func (s *Store) DeleteLogin(ctx context.Context, userID string) error {
	_, err := s.exec(ctx, `DELETE FROM last_logins WHERE user_id = ?`, userID)
	return err
}
