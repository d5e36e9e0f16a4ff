package sqlitestore

import (
	"context"
	"strings"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// InsertAdmin implements access.AdminStore.
func (s *Store) InsertAdmin(ctx context.Context, a *access.Admin) error {
	_, err := s.exec(ctx, `INSERT INTO admins (username, password_hash, totp_secret, totp_enabled, pending_totp_secret, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
		a.Username, a.PasswordHash, a.TOTPSecret, boolInt(a.TOTPEnabled), a.PendingTOTPSecret, ms(a.CreatedAt))
	return err
}

// AdminByName implements access.AdminStore.
func (s *Store) AdminByName(ctx context.Context, username string) (*access.Admin, error) {
	a := access.Admin{Username: username}
	var enabled, created int64
	err := s.queryRow(ctx, `SELECT password_hash, totp_secret, totp_enabled, pending_totp_secret, created_at FROM admins WHERE username = ?`, username).
		Scan(&a.PasswordHash, &a.TOTPSecret, &enabled, &a.PendingTOTPSecret, &created)
	if err != nil {
		return nil, mapErr(err)
	}
	a.TOTPEnabled, a.CreatedAt = enabled != 0, fromMS(created)
	return &a, nil
}

// SetAdminTOTP implements access.AdminStore.
func (s *Store) SetAdminTOTP(ctx context.Context, a *access.Admin) error {
	return mustAffect(s.exec(ctx, `UPDATE admins SET totp_secret = ?, totp_enabled = ?, pending_totp_secret = ?
		WHERE username = ? AND created_at = ?`, a.TOTPSecret, boolInt(a.TOTPEnabled), a.PendingTOTPSecret, a.Username, ms(a.CreatedAt)))
}

// SetAdminPassword implements access.AdminStore.
func (s *Store) SetAdminPassword(ctx context.Context, username string, createdAt time.Time, oldHash, newHash string) error {
	return mustAffect(s.exec(ctx, `UPDATE admins SET password_hash = ? WHERE username = ? AND created_at = ? AND password_hash = ?`,
		newHash, username, ms(createdAt), oldHash))
}

// Admins implements access.AdminStore.
func (s *Store) Admins(ctx context.Context) ([]access.Admin, error) {
	rows, err := s.query(ctx, `SELECT username, password_hash, totp_secret, totp_enabled, pending_totp_secret, created_at FROM admins
		ORDER BY username`)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.Admin
	for rows.Next() {
		var a access.Admin
		var enabled, created int64
		if err := rows.Scan(&a.Username, &a.PasswordHash, &a.TOTPSecret, &enabled, &a.PendingTOTPSecret, &created); err != nil {
			return nil, mapErr(err)
		}
		a.TOTPEnabled, a.CreatedAt = enabled != 0, fromMS(created)
		out = append(out, a)
	}
	return out, mapErr(rows.Err())
}

// DeleteAdmin implements access.AdminStore, with the administrator's
// recorded TOTP steps.
func (s *Store) DeleteAdmin(ctx context.Context, username string) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM admin_totp_steps WHERE username = ?`, username); err != nil {
			return err
		}
		return mustAffect(tx.ExecContext(ctx, `DELETE FROM admins WHERE username = ?`, username))
	})
}

// InsertTOTPStep implements access.AdminStore.
func (s *Store) InsertTOTPStep(ctx context.Context, username string, step int64, at time.Time) error {
	_, err := s.exec(ctx, `INSERT INTO admin_totp_steps (username, step, at) VALUES (?, ?, ?)`, username, step, ms(at))
	return err
}

// InsertAdminSession implements access.AdminStore.
func (s *Store) InsertAdminSession(ctx context.Context, as *access.AdminSession) error {
	_, err := s.exec(ctx, `INSERT INTO admin_sessions (token_hash, username, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		as.TokenHash, as.Username, ms(as.CreatedAt), ms(as.ExpiresAt))
	return err
}

// AdminSessionByHash implements access.AdminStore.
func (s *Store) AdminSessionByHash(ctx context.Context, tokenHash string) (*access.AdminSession, error) {
	as := access.AdminSession{TokenHash: tokenHash}
	var created, expires int64
	err := s.queryRow(ctx, `SELECT username, created_at, expires_at FROM admin_sessions WHERE token_hash = ?`, tokenHash).
		Scan(&as.Username, &created, &expires)
	if err != nil {
		return nil, mapErr(err)
	}
	as.CreatedAt, as.ExpiresAt = fromMS(created), fromMS(expires)
	return &as, nil
}

// SetAdminSessionExpiry implements access.AdminStore.
func (s *Store) SetAdminSessionExpiry(ctx context.Context, tokenHash string, expiresAt time.Time) error {
	return mustAffect(s.exec(ctx, `UPDATE admin_sessions SET expires_at = ? WHERE token_hash = ?`, ms(expiresAt), tokenHash))
}

// DeleteAdminSession implements access.AdminStore.
func (s *Store) DeleteAdminSession(ctx context.Context, tokenHash string) error {
	return mustAffect(s.exec(ctx, `DELETE FROM admin_sessions WHERE token_hash = ?`, tokenHash))
}

// DeleteAdminSessions implements access.AdminStore.
func (s *Store) DeleteAdminSessions(ctx context.Context, username string) error {
	_, err := s.exec(ctx, `DELETE FROM admin_sessions WHERE username = ?`, username)
	return err
}

// InsertSellerKey implements access.SellerKeyStore.
func (s *Store) InsertSellerKey(ctx context.Context, k *access.SellerKey) error {
	_, err := s.exec(ctx, `INSERT INTO seller_keys (id, app_id, name, scopes, secret_hash, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.AppID, k.Name, strings.Join(k.Scopes, " "), k.SecretHash, ms(k.CreatedAt), msOrZero(k.LastUsedAt))
	return err
}

const sellerKeyColumns = `id, app_id, name, scopes, secret_hash, created_at, last_used_at`

func scanSellerKey(r interface{ Scan(...any) error }) (*access.SellerKey, error) {
	var k access.SellerKey
	var scopes string
	var created, used int64
	if err := r.Scan(&k.ID, &k.AppID, &k.Name, &scopes, &k.SecretHash, &created, &used); err != nil {
		return nil, mapErr(err)
	}
	k.Scopes = strings.Fields(scopes)
	k.CreatedAt = fromMS(created)
	if used != 0 {
		k.LastUsedAt = fromMS(used)
	}
	return &k, nil
}

// SellerKeyByHash implements access.SellerKeyStore.
func (s *Store) SellerKeyByHash(ctx context.Context, secretHash string) (*access.SellerKey, error) {
	return scanSellerKey(s.queryRow(ctx, `SELECT `+sellerKeyColumns+` FROM seller_keys WHERE secret_hash = ?`, secretHash))
}

// SellerKeys implements access.SellerKeyStore.
func (s *Store) SellerKeys(ctx context.Context, appID string) ([]access.SellerKey, error) {
	rows, err := s.query(ctx, `SELECT `+sellerKeyColumns+` FROM seller_keys WHERE app_id = ? ORDER BY created_at, id`, appID)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.SellerKey
	for rows.Next() {
		k, err := scanSellerKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *k)
	}
	return out, mapErr(rows.Err())
}

// DeleteSellerKey implements access.SellerKeyStore.
func (s *Store) DeleteSellerKey(ctx context.Context, keyID string) error {
	return mustAffect(s.exec(ctx, `DELETE FROM seller_keys WHERE id = ?`, keyID))
}

// RecordSellerKeyUse implements access.SellerKeyStore.
func (s *Store) RecordSellerKeyUse(ctx context.Context, keyID string, at time.Time) error {
	return mustAffect(s.exec(ctx, `UPDATE seller_keys SET last_used_at = ? WHERE id = ?`, ms(at), keyID))
}

// msOrZero is ms(t), or 0 for the zero time.
func msOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return ms(t)
}

var (
	_ access.AdminStore     = (*Store)(nil)
	_ access.SellerKeyStore = (*Store)(nil)
)
