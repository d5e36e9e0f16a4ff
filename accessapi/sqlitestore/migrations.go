package sqlitestore

import (
	"context"
	"errors"
	"fmt"
)

// applicationID marks the file as App Access's ("AACC"), so a foreign
// SQLite database is refused rather than migrated.
const applicationID = 0x41414343

// migrations are applied in order; migration i brings the schema to
// user_version i+1. Never edit one that has shipped: add the next.
var migrations = []string{
	// 1: the initial schema.
	`
CREATE TABLE apps (
	id TEXT PRIMARY KEY,
	name TEXT NOT NULL,
	api_key TEXT NOT NULL UNIQUE,
	secret_hash TEXT NOT NULL,
	device_auth INTEGER NOT NULL,
	anonymous_access INTEGER NOT NULL,
	max_devices INTEGER NOT NULL,
	min_password_length INTEGER NOT NULL,
	session_ttl_seconds INTEGER NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX apps_by_created ON apps (created_at, id);

-- Totals per application, kept in the transactions that change them.
CREATE TABLE app_counts (
	app_id TEXT PRIMARY KEY,
	licenses INTEGER NOT NULL DEFAULT 0,
	licenses_used INTEGER NOT NULL DEFAULT 0,
	users INTEGER NOT NULL DEFAULT 0
) STRICT, WITHOUT ROWID;

-- The unique username claim, with the credentials.
CREATE TABLE accounts (
	app_id TEXT NOT NULL,
	username_key TEXT NOT NULL,
	user_id TEXT NOT NULL,
	username TEXT NOT NULL,
	password_hash TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (app_id, username_key)
) STRICT, WITHOUT ROWID;

CREATE TABLE users (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	username TEXT NOT NULL,
	username_key TEXT NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX users_by_name ON users (app_id, username_key, id);

CREATE TABLE deleted_users (user_id TEXT PRIMARY KEY) STRICT, WITHOUT ROWID;

CREATE TABLE bans (
	user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
	reason TEXT NOT NULL,
	at INTEGER NOT NULL
) STRICT;

CREATE TABLE last_logins (
	user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
	ip TEXT NOT NULL,
	at INTEGER NOT NULL
) STRICT;

-- The ledger in append order; an entry's ID is unique per user, so a
-- repeated write of one activation is kept once.
CREATE TABLE ledger (
	seq INTEGER PRIMARY KEY,
	activation_id TEXT NOT NULL,
	app_id TEXT NOT NULL,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	type TEXT NOT NULL,
	license_id TEXT NOT NULL,
	occurred_at INTEGER NOT NULL,
	minutes INTEGER,
	grants_lifetime_access INTEGER NOT NULL,
	revokes_lifetime_access INTEGER NOT NULL,
	note TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX ledger_by_user ON ledger (user_id, activation_id);
CREATE INDEX ledger_by_user_seq ON ledger (user_id, seq);

-- Each user's membership, folded from the ledger on every append: what
-- active members are counted by.
CREATE TABLE memberships (
	user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
	app_id TEXT NOT NULL,
	is_lifetime INTEGER NOT NULL,
	expires_at INTEGER
) STRICT;
CREATE INDEX memberships_by_app ON memberships (app_id, is_lifetime, expires_at);

CREATE TABLE licenses (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	code_hint TEXT NOT NULL,
	minutes INTEGER,
	grants_lifetime_access INTEGER NOT NULL,
	revokes_lifetime_access INTEGER NOT NULL,
	note TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	used INTEGER NOT NULL DEFAULT 0
) STRICT, WITHOUT ROWID;
CREATE INDEX licenses_by_app ON licenses (app_id, id);
CREATE INDEX licenses_by_app_used ON licenses (app_id, used, id);

-- The single-use claim; a used license cannot be deleted.
CREATE TABLE license_uses (
	license_id TEXT PRIMARY KEY REFERENCES licenses (id),
	app_id TEXT NOT NULL,
	user_id TEXT NOT NULL,
	username TEXT NOT NULL,
	activation_id TEXT NOT NULL,
	occurred_at INTEGER NOT NULL,
	sign_up INTEGER NOT NULL,
	minutes INTEGER,
	grants_lifetime_access INTEGER NOT NULL,
	revokes_lifetime_access INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX license_uses_by_user ON license_uses (user_id);

CREATE TABLE devices (
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	slot INTEGER NOT NULL,
	app_id TEXT NOT NULL,
	hardware_id TEXT NOT NULL,
	registered_at INTEGER NOT NULL,
	PRIMARY KEY (user_id, slot)
) STRICT, WITHOUT ROWID;

CREATE TABLE sessions (
	token_hash TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	hardware_id TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_by_user ON sessions (user_id);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);

CREATE TABLE variables (
	app_id TEXT NOT NULL,
	name TEXT NOT NULL,
	value TEXT NOT NULL,
	PRIMARY KEY (app_id, name)
) STRICT, WITHOUT ROWID;

CREATE TABLE files (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	name TEXT NOT NULL,
	mime_type TEXT NOT NULL,
	is_encrypted INTEGER NOT NULL,
	size INTEGER NOT NULL,
	sha256 TEXT NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX files_by_app ON files (app_id, created_at, id);

-- File contents in chunks of chunkSize bytes; the file's row is written
-- after them, so there is no foreign key.
CREATE TABLE file_chunks (
	file_id TEXT NOT NULL,
	n INTEGER NOT NULL,
	data BLOB NOT NULL,
	PRIMARY KEY (file_id, n)
) STRICT, WITHOUT ROWID;
`,
	// 2: counts of memberships by the day and the hour they end, kept by
	// triggers, so that counting active members reads a few hundred
	// counters and the members that end within the current hour, not every
	// active member.
	`
CREATE TABLE membership_ends (
	app_id TEXT NOT NULL,
	is_lifetime INTEGER NOT NULL,
	grain INTEGER NOT NULL, -- the length of a period in milliseconds: a day or an hour
	period INTEGER NOT NULL, -- expires_at / grain; -1 when there is no end
	members INTEGER NOT NULL,
	PRIMARY KEY (app_id, is_lifetime, grain, period)
) STRICT, WITHOUT ROWID;

INSERT INTO membership_ends (app_id, is_lifetime, grain, period, members)
	SELECT app_id, is_lifetime, g.grain, coalesce(expires_at / g.grain, -1), count(*)
	FROM memberships, (SELECT 86400000 AS grain UNION ALL SELECT 3600000) AS g
	WHERE true GROUP BY 1, 2, 3, 4;

CREATE TRIGGER membership_ends_insert AFTER INSERT ON memberships BEGIN
	INSERT INTO membership_ends (app_id, is_lifetime, grain, period, members)
		VALUES (NEW.app_id, NEW.is_lifetime, 86400000, coalesce(NEW.expires_at / 86400000, -1), 1),
		       (NEW.app_id, NEW.is_lifetime, 3600000, coalesce(NEW.expires_at / 3600000, -1), 1)
		ON CONFLICT (app_id, is_lifetime, grain, period) DO UPDATE SET members = members + 1;
END;

CREATE TRIGGER membership_ends_delete AFTER DELETE ON memberships BEGIN
	UPDATE membership_ends SET members = members - 1 WHERE app_id = OLD.app_id AND is_lifetime = OLD.is_lifetime
		AND ((grain = 86400000 AND period = coalesce(OLD.expires_at / 86400000, -1))
		  OR (grain = 3600000 AND period = coalesce(OLD.expires_at / 3600000, -1)));
END;

CREATE TRIGGER membership_ends_update AFTER UPDATE ON memberships BEGIN
	UPDATE membership_ends SET members = members - 1 WHERE app_id = OLD.app_id AND is_lifetime = OLD.is_lifetime
		AND ((grain = 86400000 AND period = coalesce(OLD.expires_at / 86400000, -1))
		  OR (grain = 3600000 AND period = coalesce(OLD.expires_at / 3600000, -1)));
	INSERT INTO membership_ends (app_id, is_lifetime, grain, period, members)
		VALUES (NEW.app_id, NEW.is_lifetime, 86400000, coalesce(NEW.expires_at / 86400000, -1), 1),
		       (NEW.app_id, NEW.is_lifetime, 3600000, coalesce(NEW.expires_at / 3600000, -1), 1)
		ON CONFLICT (app_id, is_lifetime, grain, period) DO UPDATE SET members = members + 1;
END;
`,
	// 3: the settings of the security work (the token's device rule, the
	// session cap, throttling overrides as JSON), the key id of encrypted
	// files, failed attempts (one row each) and the sources known to have
	// logged in to an account.
	`
ALTER TABLE apps ADD COLUMN token_requires_hardware_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE apps ADD COLUMN max_sessions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE apps ADD COLUMN throttle TEXT NOT NULL DEFAULT '{}';
ALTER TABLE files ADD COLUMN key_id TEXT NOT NULL DEFAULT '';

CREATE TABLE failures (
	id INTEGER PRIMARY KEY,
	key TEXT NOT NULL,
	at INTEGER NOT NULL
) STRICT;
CREATE INDEX failures_by_key ON failures (key, at);
CREATE INDEX failures_by_age ON failures (at);

CREATE TABLE known_sources (
	key TEXT NOT NULL,
	source TEXT NOT NULL,
	at INTEGER NOT NULL,
	PRIMARY KEY (key, source)
) STRICT, WITHOUT ROWID;
`,
	// 4: the audit log: append-only, keyed by a time-ordered UUIDv7 (a time
	// range is an ID range), listed per application by ID, action or user.
	`
CREATE TABLE audit_log (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	at INTEGER NOT NULL,
	principal_kind TEXT NOT NULL,
	principal_name TEXT NOT NULL,
	action TEXT NOT NULL,
	user_id TEXT NOT NULL,
	target TEXT NOT NULL,
	before TEXT,
	after TEXT
) STRICT, WITHOUT ROWID;
CREATE INDEX audit_by_app ON audit_log (app_id, id);
CREATE INDEX audit_by_action ON audit_log (app_id, action, id);
CREATE INDEX audit_by_user ON audit_log (app_id, user_id, id);
`,
	// 5: dashboard administrators, the TOTP steps they used, their
	// sessions (by token hash), and seller keys (by secret hash).
	`
CREATE TABLE admins (
	username TEXT PRIMARY KEY,
	password_hash TEXT NOT NULL,
	totp_secret TEXT NOT NULL,
	totp_enabled INTEGER NOT NULL,
	created_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE admin_totp_steps (
	username TEXT NOT NULL,
	step INTEGER NOT NULL,
	at INTEGER NOT NULL,
	PRIMARY KEY (username, step)
) STRICT, WITHOUT ROWID;

CREATE TABLE admin_sessions (
	token_hash TEXT PRIMARY KEY,
	username TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX admin_sessions_by_user ON admin_sessions (username);

CREATE TABLE seller_keys (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	name TEXT NOT NULL,
	scopes TEXT NOT NULL, -- space separated
	secret_hash TEXT NOT NULL UNIQUE,
	created_at INTEGER NOT NULL,
	last_used_at INTEGER NOT NULL
) STRICT;
CREATE INDEX seller_keys_by_app ON seller_keys (app_id, created_at, id);
`,
	// 6: the change feed. AUTOINCREMENT never reuses a sequence number, and
	// the single writer makes entries visible in sequence order.
	`
CREATE TABLE changes (
	seq INTEGER PRIMARY KEY AUTOINCREMENT,
	at INTEGER NOT NULL,
	origin TEXT NOT NULL,
	kind TEXT NOT NULL,
	app_id TEXT NOT NULL,
	api_key TEXT NOT NULL,
	user_id TEXT NOT NULL,
	session_hash TEXT NOT NULL
) STRICT;
CREATE INDEX changes_by_at ON changes (at);
`,
	// 7: activity by day (the dashboard's chart), kept by triggers as the
	// rows come and go, so that a chart of n days reads n rows.
	`
CREATE TABLE daily_activity (
	app_id TEXT NOT NULL,
	day INTEGER NOT NULL, -- days since 1970-01-01 (UTC)
	sign_ups INTEGER NOT NULL DEFAULT 0,
	activations INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (app_id, day)
) STRICT, WITHOUT ROWID;

INSERT INTO daily_activity (app_id, day, sign_ups)
	SELECT app_id, created_at / 86400000, count(*) FROM users GROUP BY 1, 2;
INSERT INTO daily_activity (app_id, day, activations)
	SELECT app_id, occurred_at / 86400000, count(*) FROM license_uses WHERE true GROUP BY 1, 2
	ON CONFLICT (app_id, day) DO UPDATE SET activations = excluded.activations;

CREATE TRIGGER daily_sign_ups AFTER INSERT ON users BEGIN
	INSERT INTO daily_activity (app_id, day, sign_ups) VALUES (NEW.app_id, NEW.created_at / 86400000, 1)
	ON CONFLICT (app_id, day) DO UPDATE SET sign_ups = sign_ups + 1;
END;
CREATE TRIGGER daily_sign_ups_gone AFTER DELETE ON users BEGIN
	UPDATE daily_activity SET sign_ups = sign_ups - 1 WHERE app_id = OLD.app_id AND day = OLD.created_at / 86400000;
END;
CREATE TRIGGER daily_activations AFTER INSERT ON license_uses BEGIN
	INSERT INTO daily_activity (app_id, day, activations) VALUES (NEW.app_id, NEW.occurred_at / 86400000, 1)
	ON CONFLICT (app_id, day) DO UPDATE SET activations = activations + 1;
END;
CREATE TRIGGER daily_activations_gone AFTER DELETE ON license_uses BEGIN
	UPDATE daily_activity SET activations = activations - 1 WHERE app_id = OLD.app_id AND day = OLD.occurred_at / 86400000;
END;
`,
	// 8: webhooks: endpoints, the outbox of deliveries and their attempts.
	`
CREATE TABLE webhooks (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	url TEXT NOT NULL,
	events TEXT NOT NULL, -- space separated
	sealed_secret BLOB NOT NULL,
	enabled INTEGER NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX webhooks_by_app ON webhooks (app_id, created_at, id);

CREATE TABLE webhook_deliveries (
	id TEXT PRIMARY KEY,
	webhook_id TEXT NOT NULL,
	app_id TEXT NOT NULL,
	event TEXT NOT NULL,
	payload BLOB NOT NULL,
	created_at INTEGER NOT NULL,
	status TEXT NOT NULL,
	attempts INTEGER NOT NULL,
	next_attempt_at INTEGER NOT NULL,
	retry_from INTEGER NOT NULL,
	last_status INTEGER NOT NULL,
	last_error TEXT NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_created ON webhook_deliveries (created_at);

CREATE TABLE webhook_attempts (
	delivery_id TEXT NOT NULL,
	number INTEGER NOT NULL,
	claimed_at INTEGER NOT NULL,
	finished INTEGER NOT NULL,
	status_code INTEGER NOT NULL,
	error TEXT NOT NULL,
	duration_ms INTEGER NOT NULL,
	outcome TEXT NOT NULL,
	next_attempt_at INTEGER NOT NULL,
	PRIMARY KEY (delivery_id, number)
) STRICT, WITHOUT ROWID;
`,
	// 9: applications' Ed25519 signing keys (the seed sealed under a key
	// derived from the file key); (app_id, generation) decides concurrent
	// creations and rotations. The offline token lifetime (0: the default).
	`
CREATE TABLE signing_keys (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	generation INTEGER NOT NULL,
	public_key BLOB NOT NULL,
	sealed_seed BLOB NOT NULL,
	created_at INTEGER NOT NULL,
	UNIQUE (app_id, generation)
) STRICT;
ALTER TABLE apps ADD COLUMN offline_token_ttl_seconds INTEGER NOT NULL DEFAULT 0;
`,
	// 10: a webhook secret rotation's overlap: the previous secret (sealed
	// like the current one) and when it stops signing (0: no overlap).
	`
ALTER TABLE webhooks ADD COLUMN previous_sealed_secret BLOB;
ALTER TABLE webhooks ADD COLUMN previous_secret_until INTEGER NOT NULL DEFAULT 0;
`,
	// 11: deleting an application deletes its seller keys; the keys left
	// by applications deleted before go now.
	`
DELETE FROM seller_keys WHERE app_id NOT IN (SELECT id FROM apps);
`,
	// 12: a TOTP enrolment's new secret is pending apart from the enabled
	// one, which stays in force until it is confirmed. An enrolment begun
	// before (a secret not yet enabled) moves to the pending column. The
	// secrets are sealed by the service, which holds the file key: those
	// stored in the clear are sealed when the administrator is next
	// written.
	`
ALTER TABLE admins ADD COLUMN pending_totp_secret TEXT NOT NULL DEFAULT '';
UPDATE admins SET pending_totp_secret = totp_secret, totp_secret = '' WHERE totp_enabled = 0 AND totp_secret != '';
`,
	// 13: the event journal: the events a change is about to cause,
	// written before it and deleted once the listeners were told; the
	// sweeper reads the old ones by (at, id).
	`
CREATE TABLE event_journal (
	id TEXT PRIMARY KEY,
	at INTEGER NOT NULL,
	origin TEXT NOT NULL,
	events BLOB NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX event_journal_by_at ON event_journal (at, id);
`,
	// 14: a known source belongs to the owner that logged in from it (a
	// user ID, or an administrator's incarnation), not to the username,
	// which a deleted user leaves to the next. Sources recorded without an
	// owner cannot be given one: they are dropped, and a returning user's
	// source is known again after its next login.
	`
DROP TABLE known_sources;
CREATE TABLE known_sources (
	key TEXT NOT NULL,
	source TEXT NOT NULL,
	owner TEXT NOT NULL,
	at INTEGER NOT NULL,
	PRIMARY KEY (key, source, owner)
) STRICT, WITHOUT ROWID;
`,
}

// SchemaVersion is the schema version this build writes.
var SchemaVersion = len(migrations)

// migrate checks that the file is this program's database, not newer than
// this build, switches it to WAL mode, and brings the schema up to date in
// one transaction. Nothing is written before the checks pass.
func (s *Store) migrate(ctx context.Context) error {
	var version, appID, tables int
	if err := s.write.QueryRowContext(ctx, `SELECT (SELECT user_version FROM pragma_user_version),
		(SELECT application_id FROM pragma_application_id), (SELECT count(*) FROM sqlite_schema)`).Scan(&version, &appID, &tables); err != nil {
		return notDatabase(err)
	}
	switch {
	case tables > 0 && appID != applicationID:
		return errors.New("an SQLite database of another program (refusing to touch it)")
	case version > len(migrations):
		return fmt.Errorf("schema version %d is newer than this build's %d: run the newer build, or restore a backup", version, len(migrations))
	}
	if _, err := s.write.ExecContext(ctx, `PRAGMA journal_mode = WAL`); err != nil {
		return fmt.Errorf("switching to WAL mode: %w", err)
	}
	if version == len(migrations) {
		return nil
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	err = func() error {
		// Read again under the write lock: another opener may have run.
		if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
			return notDatabase(err)
		}
		for i := version; i < len(migrations); i++ {
			if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA application_id = %d; PRAGMA user_version = %d`, applicationID, len(migrations))); err != nil {
			return fmt.Errorf("setting schema version: %w", err)
		}
		return nil
	}()
	if err != nil {
		return err
	}
	return tx.Commit()
}

// notDatabase words the errors SQLite gives for a damaged file.
func notDatabase(err error) error {
	return fmt.Errorf("cannot read the database (corrupt, or not a database): %w", err)
}
