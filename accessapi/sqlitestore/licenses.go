package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/appaccess/appaccess/accessapi/access"
)

// InsertLicenses implements access.LicenseStore: all of them or none.
func (s *Store) InsertLicenses(ctx context.Context, ls []access.License) error {
	if len(ls) == 0 {
		return nil
	}
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO licenses (id, app_id, code_hint, minutes, grants_lifetime_access,
			revokes_lifetime_access, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		perApp := map[string]int64{}
		for _, l := range ls {
			if _, err := st.ExecContext(ctx, l.ID, l.AppID, l.CodeHint, l.Grant.Minutes, boolInt(l.Grant.GrantsLifetimeAccess),
				boolInt(l.Grant.RevokesLifetimeAccess), l.Note, ms(l.CreatedAt)); err != nil {
				return err
			}
			perApp[l.AppID]++
		}
		for app, n := range perApp {
			if err := count(ctx, tx, app, "licenses", n); err != nil {
				return err
			}
		}
		return nil
	})
}

const licenseColumns = `id, app_id, code_hint, minutes, grants_lifetime_access, revokes_lifetime_access, note, created_at`

func scanLicense(row interface{ Scan(...any) error }) (*access.License, error) {
	var l access.License
	var created int64
	if err := row.Scan(&l.ID, &l.AppID, &l.CodeHint, &l.Grant.Minutes, &l.Grant.GrantsLifetimeAccess,
		&l.Grant.RevokesLifetimeAccess, &l.Note, &created); err != nil {
		return nil, mapErr(err)
	}
	l.CreatedAt = fromMS(created)
	return &l, nil
}

// LicenseByID implements access.LicenseStore.
func (s *Store) LicenseByID(ctx context.Context, licenseID string) (*access.License, error) {
	return scanLicense(s.queryRow(ctx, `SELECT `+licenseColumns+` FROM licenses WHERE id = ?`, licenseID))
}

// Licenses implements access.LicenseStore on the (app_id, id) index, or
// (app_id, used, id) when filtered.
func (s *Store) Licenses(ctx context.Context, appID string, f access.LicenseFilter, after string, limit int) ([]access.License, error) {
	q := `SELECT ` + licenseColumns + ` FROM licenses WHERE app_id = ? AND id > ?`
	args := []any{appID, after}
	if f.Used != nil {
		q += ` AND used = ?`
		args = append(args, boolInt(*f.Used))
	}
	rows, err := s.query(ctx, q+` ORDER BY id LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.License
	for rows.Next() {
		l, err := scanLicense(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *l)
	}
	return out, mapErr(rows.Err())
}

// DeleteLicense implements access.LicenseStore. A used license cannot be
// deleted (its claim refers to it).
func (s *Store) DeleteLicense(ctx context.Context, licenseID string) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		var appID string
		var used bool
		err := tx.QueryRowContext(ctx, `DELETE FROM licenses WHERE id = ? RETURNING app_id, used`, licenseID).Scan(&appID, &used)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if used {
			if err := count(ctx, tx, appID, "licenses_used", -1); err != nil {
				return err
			}
		}
		return count(ctx, tx, appID, "licenses", -1)
	})
}

// InsertLicenseUse implements access.LicenseStore; the license is marked
// used in the same transaction.
func (s *Store) InsertLicenseUse(ctx context.Context, u *access.LicenseUse, g access.Grant) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error { return insertLicenseUse(ctx, tx, u, g) })
}

func insertLicenseUse(ctx context.Context, tx *writeTx, u *access.LicenseUse, g access.Grant) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO license_uses (license_id, app_id, user_id, username, activation_id, occurred_at,
		sign_up, minutes, grants_lifetime_access, revokes_lifetime_access) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.LicenseID, u.AppID, u.UserID, u.Username, u.ActivationID, ms(u.OccurredAt), boolInt(u.SignUp),
		g.Minutes, boolInt(g.GrantsLifetimeAccess), boolInt(g.RevokesLifetimeAccess))
	if err != nil {
		return err
	}
	return markUsed(ctx, tx, u.LicenseID)
}

// MarkLicenseUsed implements access.LicenseStore.
func (s *Store) MarkLicenseUsed(ctx context.Context, licenseID string) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error { return markUsed(ctx, tx, licenseID) })
}

func markUsed(ctx context.Context, tx *writeTx, licenseID string) error {
	var appID string
	err := tx.QueryRowContext(ctx, `UPDATE licenses SET used = 1 WHERE id = ? AND used = 0 RETURNING app_id`, licenseID).Scan(&appID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // marked already
	}
	if err != nil {
		return err
	}
	return count(ctx, tx, appID, "licenses_used", 1)
}

// LicenseUseByID implements access.LicenseStore.
func (s *Store) LicenseUseByID(ctx context.Context, licenseID string) (*access.LicenseUse, access.Grant, error) {
	var u access.LicenseUse
	var g access.Grant
	var at int64
	err := s.queryRow(ctx, `SELECT license_id, app_id, user_id, username, activation_id, occurred_at, sign_up,
		minutes, grants_lifetime_access, revokes_lifetime_access FROM license_uses WHERE license_id = ?`, licenseID).
		Scan(&u.LicenseID, &u.AppID, &u.UserID, &u.Username, &u.ActivationID, &at, &u.SignUp,
			&g.Minutes, &g.GrantsLifetimeAccess, &g.RevokesLifetimeAccess)
	if err != nil {
		return nil, access.Grant{}, mapErr(err)
	}
	u.OccurredAt = fromMS(at)
	return &u, g, nil
}

// RedeemLicense implements access.LicenseStore in one transaction: the
// claim, the used mark and counter, the new user (for a sign-up), and the
// ledger entry with the membership summary.
func (s *Store) RedeemLicense(ctx context.Context, r *access.Redemption) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		if err := insertLicenseUse(ctx, tx, r.Use, r.Grant); err != nil {
			return err // ErrDuplicate: used already
		}
		if u := r.NewUser; u != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO accounts (app_id, username_key, user_id, username, password_hash, created_at)
				VALUES (?, ?, ?, ?, ?, ?)`, u.AppID, access.UsernameKey(u.Username), u.ID, u.Username, u.PasswordHash, ms(u.CreatedAt)); err != nil {
				return stepErr("creating account", err)
			}
			if err := insertUser(ctx, tx, u); err != nil {
				return stepErr("creating user", err)
			}
		}
		return stepErr("appending activation", appendActivation(ctx, tx, &r.Activation))
	})
}

// stepErr wraps the error of a step after the claim so that it does not
// read as "the license is used".
func stepErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %v", what, mapErr(err))
}
