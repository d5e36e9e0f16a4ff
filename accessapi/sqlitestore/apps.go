package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

const appColumns = `id, name, api_key, secret_hash, device_auth, anonymous_access, max_devices, min_password_length,
	session_ttl_seconds, created_at, token_requires_hardware_id, max_sessions, throttle, offline_token_ttl_seconds`

func appArgs(a *access.App) []any {
	throttle, _ := json.Marshal(a.Throttle) // plain numbers: cannot fail
	return []any{a.ID, a.Name, a.APIKey, a.SecretHash, boolInt(a.DeviceAuth), boolInt(a.AnonymousAccess), a.MaxDevices,
		a.MinPasswordLength, int64(a.SessionTTL / time.Second), ms(a.CreatedAt), boolInt(a.TokenRequiresHardwareID),
		a.MaxSessions, string(throttle), int64(a.OfflineTokenTTL / time.Second)}
}

func scanApp(row interface{ Scan(...any) error }) (*access.App, error) {
	var a access.App
	var ttl, created, offlineTTL int64
	var throttle string
	if err := row.Scan(&a.ID, &a.Name, &a.APIKey, &a.SecretHash, &a.DeviceAuth, &a.AnonymousAccess, &a.MaxDevices,
		&a.MinPasswordLength, &ttl, &created, &a.TokenRequiresHardwareID, &a.MaxSessions, &throttle, &offlineTTL); err != nil {
		return nil, mapErr(err)
	}
	if err := json.Unmarshal([]byte(throttle), &a.Throttle); err != nil {
		return nil, fmt.Errorf("application %s: throttle settings: %w", a.ID, err)
	}
	a.SessionTTL = time.Duration(ttl) * time.Second
	a.OfflineTokenTTL = time.Duration(offlineTTL) * time.Second
	a.CreatedAt = fromMS(created)
	return &a, nil
}

// InsertApp implements access.AppStore.
func (s *Store) InsertApp(ctx context.Context, a *access.App) error {
	_, err := s.exec(ctx, `INSERT INTO apps (`+appColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, appArgs(a)...)
	return err
}

// ReplaceApp implements access.AppStore.
func (s *Store) ReplaceApp(ctx context.Context, a *access.App) error {
	args := appArgs(a)
	return mustAffect(s.exec(ctx, `UPDATE apps SET name = ?, api_key = ?, secret_hash = ?, device_auth = ?, anonymous_access = ?,
		max_devices = ?, min_password_length = ?, session_ttl_seconds = ?, created_at = ?, token_requires_hardware_id = ?,
		max_sessions = ?, throttle = ?, offline_token_ttl_seconds = ? WHERE id = ?`, append(args[1:], a.ID)...))
}

// DeleteApp implements access.AppStore: the application and its seller
// keys in one transaction.
func (s *Store) DeleteApp(ctx context.Context, appID string) error {
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM seller_keys WHERE app_id = ?`, appID); err != nil {
			return fmt.Errorf("deleting the seller keys: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM apps WHERE id = ?`, appID); err != nil {
			return fmt.Errorf("deleting the application: %w", err)
		}
		return nil
	})
}

// AppByID implements access.AppStore.
func (s *Store) AppByID(ctx context.Context, appID string) (*access.App, error) {
	return scanApp(s.queryRow(ctx, `SELECT `+appColumns+` FROM apps WHERE id = ?`, appID))
}

// AppByKey implements access.AppStore.
func (s *Store) AppByKey(ctx context.Context, apiKey string) (*access.App, error) {
	return scanApp(s.queryRow(ctx, `SELECT `+appColumns+` FROM apps WHERE api_key = ?`, apiKey))
}

// Apps implements access.AppStore.
func (s *Store) Apps(ctx context.Context) ([]access.App, error) {
	rows, err := s.query(ctx, `SELECT `+appColumns+` FROM apps ORDER BY created_at, id`)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.App
	for rows.Next() {
		a, err := scanApp(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *a)
	}
	return out, mapErr(rows.Err())
}

// AppCounts implements access.AppStore: the totals are counters kept by
// the writes that change them; active members are summed from the counts
// of memberships by the day and hour they end (membership_ends), plus those
// ending within the current hour, counted on the memberships index.
func (s *Store) AppCounts(ctx context.Context, appID string, now time.Time) (access.AppCounts, error) {
	var c access.AppCounts
	err := s.queryRow(ctx, `SELECT licenses, licenses_used, users FROM app_counts WHERE app_id = ?`, appID).
		Scan(&c.Licenses, &c.LicensesUsed, &c.Users)
	if err != nil && err != sql.ErrNoRows {
		return c, mapErr(err)
	}
	c.LicensesUnused = c.Licenses - c.LicensesUsed
	const day, hour = 24 * 60 * 60 * 1000, 60 * 60 * 1000
	t := ms(now)
	// Lifetime members, then those ending after today (by day), later
	// today (by hour), and later this hour (one by one, on the index).
	err = s.queryRow(ctx, `SELECT
		coalesce((SELECT sum(members) FROM membership_ends WHERE app_id = ?1 AND is_lifetime = 1 AND grain = ?2), 0) +
		coalesce((SELECT sum(members) FROM membership_ends WHERE app_id = ?1 AND is_lifetime = 0 AND grain = ?2 AND period > ?3), 0) +
		coalesce((SELECT sum(members) FROM membership_ends WHERE app_id = ?1 AND is_lifetime = 0 AND grain = ?4 AND period > ?5 AND period < ?6), 0) +
		(SELECT count(*) FROM memberships WHERE app_id = ?1 AND is_lifetime = 0 AND expires_at > ?7 AND expires_at < ?8)`,
		appID, day, t/day, hour, t/hour, (t/day+1)*day/hour, t, (t/hour+1)*hour).Scan(&c.ActiveMembers)
	return c, mapErr(err)
}

// ActivityByDay implements access.AppStore from the daily counters the
// triggers of migration 7 keep.
func (s *Store) ActivityByDay(ctx context.Context, appID string, from time.Time, days int) ([]access.DayActivity, error) {
	const day = 24 * 60 * 60 * 1000
	first := ms(from) / day
	if ms(from) < 0 && ms(from)%day != 0 {
		first--
	}
	out := make([]access.DayActivity, days)
	for i := range out {
		out[i].Day = time.UnixMilli((first + int64(i)) * day).UTC()
	}
	rows, err := s.query(ctx, `SELECT day, sign_ups, activations FROM daily_activity WHERE app_id = ? AND day >= ? AND day < ?`,
		appID, first, first+int64(days))
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var d, signUps, activations int64
		if err := rows.Scan(&d, &signUps, &activations); err != nil {
			return nil, mapErr(err)
		}
		out[d-first].SignUps, out[d-first].Activations = signUps, activations
	}
	return out, mapErr(rows.Err())
}

// count adds to an application's counters inside tx.
func count(ctx context.Context, tx *writeTx, appID, column string, delta int64) error {
	if delta == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO app_counts (app_id, `+column+`) VALUES (?1, ?2)
		ON CONFLICT (app_id) DO UPDATE SET `+column+` = `+column+` + ?2`, appID, delta)
	return err
}

// ms is a time as stored: Unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }
