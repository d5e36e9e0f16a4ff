package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/appaccess/appaccess/accessapi/access"
)

var (
	_ access.Exporter = (*Store)(nil)
	_ access.Importer = (*Store)(nil)
)

// exportPage is the rows one export query reads.
const exportPage = 1000

// exportTable is how one record type is read for an export: the key
// columns the pages follow, then the record's columns.
type exportTable struct {
	typ  access.RecordType
	from string
	key  []string
	cols string
	scan func(dest func(...any) error) (*access.Record, error)
}

var exportTables = []exportTable{
	{access.RecordAccount, "accounts", []string{"app_id", "username_key"}, "user_id, app_id, username, password_hash, created_at",
		func(scan func(...any) error) (*access.Record, error) {
			var u access.User
			var at int64
			err := scan(&u.ID, &u.AppID, &u.Username, &u.PasswordHash, &at)
			u.CreatedAt = fromMS(at)
			return &access.Record{Account: &u}, err
		}},
	{access.RecordUser, "users", []string{"id"}, userColumns, func(scan func(...any) error) (*access.Record, error) {
		u, err := scanUser(rowScanner(scan))
		return &access.Record{User: u}, err
	}},
	{access.RecordDeletedUser, "deleted_users", []string{"user_id"}, "user_id", func(scan func(...any) error) (*access.Record, error) {
		var r access.Record
		return &r, scan(&r.DeletedUser)
	}},
	{access.RecordBan, "bans", []string{"user_id"}, "user_id, reason, at", func(scan func(...any) error) (*access.Record, error) {
		var b access.Ban
		var at int64
		err := scan(&b.UserID, &b.Reason, &at)
		b.At = fromMS(at)
		return &access.Record{Ban: &b}, err
	}},
	{access.RecordLastLogin, "last_logins", []string{"user_id"}, "user_id, ip, at", func(scan func(...any) error) (*access.Record, error) {
		var l access.LastLogin
		var at int64
		err := scan(&l.UserID, &l.IP, &at)
		l.At = fromMS(at)
		return &access.Record{LastLogin: &l}, err
	}},
	{access.RecordActivation, "ledger", []string{"seq"}, ledgerColumns, func(scan func(...any) error) (*access.Record, error) {
		var a access.Activation
		var seq, at int64
		var typ string
		err := scan(&seq, &a.ID, &a.AppID, &a.UserID, &typ, &a.LicenseID, &at, &a.Minutes,
			&a.GrantsLifetimeAccess, &a.RevokesLifetimeAccess, &a.Note)
		a.Type, a.OccurredAt = access.ActivationType(typ), fromMS(at)
		return &access.Record{Activation: &a}, err
	}},
	{access.RecordDevice, "devices", []string{"user_id", "slot"}, "user_id, slot, app_id, hardware_id, registered_at",
		func(scan func(...any) error) (*access.Record, error) {
			var d access.Device
			var at int64
			err := scan(&d.UserID, &d.Slot, &d.AppID, &d.HardwareID, &at)
			d.RegisteredAt = fromMS(at)
			return &access.Record{Device: &d}, err
		}},
	{access.RecordSession, "sessions", []string{"token_hash"}, "token_hash, app_id, user_id, hardware_id, created_at, expires_at",
		func(scan func(...any) error) (*access.Record, error) {
			var x access.Session
			var created, expires int64
			err := scan(&x.TokenHash, &x.AppID, &x.UserID, &x.HardwareID, &created, &expires)
			x.CreatedAt, x.ExpiresAt = fromMS(created), fromMS(expires)
			return &access.Record{Session: &x}, err
		}},
	{access.RecordLicense, "licenses", []string{"id"}, licenseColumns, func(scan func(...any) error) (*access.Record, error) {
		l, err := scanLicense(rowScanner(scan))
		return &access.Record{License: l}, err
	}},
	{access.RecordLicenseUse, "license_uses", []string{"license_id"}, `license_id, app_id, user_id, username, activation_id,
		occurred_at, sign_up, minutes, grants_lifetime_access, revokes_lifetime_access`,
		func(scan func(...any) error) (*access.Record, error) {
			var u access.ExportedUse
			var at int64
			err := scan(&u.LicenseID, &u.AppID, &u.UserID, &u.Username, &u.ActivationID, &at, &u.SignUp,
				&u.Grant.Minutes, &u.Grant.GrantsLifetimeAccess, &u.Grant.RevokesLifetimeAccess)
			u.OccurredAt = fromMS(at)
			return &access.Record{LicenseUse: &u}, err
		}},
	{access.RecordVariable, "variables", []string{"app_id", "name"}, "app_id, name, value", func(scan func(...any) error) (*access.Record, error) {
		var v access.Variable
		return &access.Record{Variable: &v}, scan(&v.AppID, &v.Name, &v.Value)
	}},
	{access.RecordFile, "files", []string{"id"}, fileColumns, func(scan func(...any) error) (*access.Record, error) {
		f, err := scanFile(rowScanner(scan))
		return &access.Record{File: f}, err
	}},
	{access.RecordSigningKey, "signing_keys", []string{"id"}, "id, app_id, generation, public_key, sealed_seed, created_at",
		func(scan func(...any) error) (*access.Record, error) {
			var k access.SigningKey
			var pub []byte
			var at int64
			err := scan(&k.ID, &k.AppID, &k.Generation, &pub, &k.SealedSeed, &at)
			k.PublicKey, k.CreatedAt = pub, fromMS(at)
			return &access.Record{SigningKey: &k}, err
		}},
	{access.RecordWebhook, "webhooks", []string{"id"}, webhookColumns, func(scan func(...any) error) (*access.Record, error) {
		w, err := scanWebhook(rowScanner(scan))
		return &access.Record{Webhook: w}, err
	}},
	{access.RecordWebhookDelivery, "webhook_deliveries", []string{"id"}, deliveryColumns, func(scan func(...any) error) (*access.Record, error) {
		d, err := scanDelivery(rowScanner(scan))
		return &access.Record{WebhookDelivery: d}, err
	}},
	{access.RecordWebhookAttempt, "webhook_attempts", []string{"delivery_id", "number"}, attemptColumns,
		func(scan func(...any) error) (*access.Record, error) {
			a, err := scanAttempt(rowScanner(scan))
			return &access.Record{WebhookAttempt: a}, err
		}},
	{access.RecordApp, "apps", []string{"id"}, appColumns, func(scan func(...any) error) (*access.Record, error) {
		a, err := scanApp(rowScanner(scan))
		return &access.Record{App: a}, err
	}},
}

// rowScanner adapts a scan function to the Scan method the scan helpers take.
type rowScanner func(...any) error

func (f rowScanner) Scan(dest ...any) error { return f(dest...) }

// Export implements access.Exporter: every table in pages of its primary
// key, all inside one read transaction, so the export is one snapshot.
func (s *Store) Export(ctx context.Context, emit func(*access.Record) error) error {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range exportTables {
		if err := exportTableRows(ctx, tx, t, emit); err != nil {
			return fmt.Errorf("%s: %w", t.from, err)
		}
	}
	return nil
}

func exportTableRows(ctx context.Context, tx *sql.Tx, t exportTable, emit func(*access.Record) error) error {
	keys := strings.Join(t.key, ", ")
	first := fmt.Sprintf(`SELECT %s, %s FROM %s ORDER BY %s LIMIT %d`, keys, t.cols, t.from, keys, exportPage)
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(t.key)), ", ")
	more := fmt.Sprintf(`SELECT %s, %s FROM %s WHERE (%s) > (%s) ORDER BY %s LIMIT %d`, keys, t.cols, t.from, keys, marks, keys, exportPage)
	var last []any
	for {
		q, args := first, []any(nil)
		if last != nil {
			q, args = more, last
		}
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		n := 0
		var recs []*access.Record
		for rows.Next() {
			key := make([]any, len(t.key))
			keyDest := make([]any, len(t.key))
			for i := range key {
				keyDest[i] = &key[i]
			}
			r, err := t.scan(func(dest ...any) error { return rows.Scan(append(keyDest, dest...)...) })
			if err != nil {
				rows.Close()
				return err
			}
			r.Type = t.typ
			recs = append(recs, r)
			last = key
			n++
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := emit(r); err != nil {
				return err
			}
		}
		if n < exportPage {
			return nil
		}
	}
}

// importCacheKiB is the write connection's page cache during an import.
const importCacheKiB = 128 << 10

// dataTables are the tables an empty store has no rows in. Seller keys
// are not exported, but a store holding one is not empty: the key would
// act on an imported application of its app_id. The event journal is
// neither exported nor counted: its records are transient (see
// access.EventJournal).
var dataTables = []string{"apps", "accounts", "users", "deleted_users", "bans", "last_logins", "ledger", "licenses",
	"license_uses", "devices", "sessions", "variables", "files", "file_chunks", "signing_keys", "webhooks", "webhook_deliveries",
	"webhook_attempts", "seller_keys"}

// Import implements access.Importer in one write transaction: nothing is
// visible until every record is written, and a failure (or a crash) leaves
// the store as empty as it was. Other writes wait while it runs.
func (s *Store) Import(ctx context.Context, next func() (*access.Record, error)) error {
	ran := false
	return s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		if ran {
			return fmt.Errorf("the import was interrupted by a busy database; run it again")
		}
		ran = true
		var exists []string
		for _, t := range dataTables {
			exists = append(exists, "EXISTS (SELECT 1 FROM "+t+")")
		}
		var notEmpty bool
		if err := tx.QueryRowContext(ctx, `SELECT `+strings.Join(exists, " OR ")).Scan(&notEmpty); err != nil {
			return err
		}
		if notEmpty {
			return access.ErrNotEmpty
		}
		// The import is one transaction that inserts into several indexes
		// in key order and into others (users by name, ledger by user,
		// memberships) in random order: a larger page cache for its
		// duration keeps those from spilling and being read back.
		var cacheSize int64
		if err := tx.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&cacheSize); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = %d`, -importCacheKiB)); err != nil {
			return err
		}
		defer func() { _, _ = tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = %d`, cacheSize)) }()
		im := &sqliteImport{tx: tx, stmts: map[string]*sql.Stmt{}, counts: map[[2]string]int64{}}
		defer im.close()
		for {
			r, err := next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return err
			}
			if err := im.write(ctx, r); err != nil {
				return importErr(err)
			}
		}
		return im.finish(ctx)
	})
}

// sqliteImport writes records inside the import's transaction.
type sqliteImport struct {
	tx     *writeTx
	stmts  map[string]*sql.Stmt
	counts map[[2]string]int64 // (app, counter column) -> delta

	fileID string
	chunkN int
	buf    []byte
}

func (im *sqliteImport) exec(ctx context.Context, q string, args ...any) error {
	st, ok := im.stmts[q]
	if !ok {
		var err error
		if st, err = im.tx.Tx.PrepareContext(ctx, q); err != nil {
			return err
		}
		im.stmts[q] = st
	}
	_, err := st.ExecContext(ctx, args...)
	return err
}

func (im *sqliteImport) close() {
	for _, st := range im.stmts {
		_ = st.Close()
	}
}

func (im *sqliteImport) write(ctx context.Context, r *access.Record) error {
	switch r.Type {
	case access.RecordAccount:
		u := r.Account
		return im.exec(ctx, `INSERT INTO accounts (app_id, username_key, user_id, username, password_hash, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, u.AppID, access.UsernameKey(u.Username), u.ID, u.Username, u.PasswordHash, ms(u.CreatedAt))
	case access.RecordUser:
		u := r.User
		im.counts[[2]string{u.AppID, "users"}]++
		return im.exec(ctx, `INSERT INTO users (id, app_id, username, username_key, created_at) VALUES (?, ?, ?, ?, ?)`,
			u.ID, u.AppID, u.Username, access.UsernameKey(u.Username), ms(u.CreatedAt))
	case access.RecordDeletedUser:
		return im.exec(ctx, `INSERT INTO deleted_users (user_id) VALUES (?)`, r.DeletedUser)
	case access.RecordBan:
		return im.exec(ctx, `INSERT INTO bans (user_id, reason, at) VALUES (?, ?, ?)`, r.Ban.UserID, r.Ban.Reason, ms(r.Ban.At))
	case access.RecordLastLogin:
		l := r.LastLogin
		return im.exec(ctx, `INSERT INTO last_logins (user_id, ip, at) VALUES (?, ?, ?)`, l.UserID, l.IP, ms(l.At))
	case access.RecordActivation:
		return appendActivation(ctx, im.tx, r.Activation)
	case access.RecordDevice:
		d := r.Device
		return im.exec(ctx, `INSERT INTO devices (user_id, slot, app_id, hardware_id, registered_at) VALUES (?, ?, ?, ?, ?)`,
			d.UserID, d.Slot, d.AppID, d.HardwareID, ms(d.RegisteredAt))
	case access.RecordSession:
		x := r.Session
		return im.exec(ctx, `INSERT INTO sessions (token_hash, app_id, user_id, hardware_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
			x.TokenHash, x.AppID, x.UserID, x.HardwareID, ms(x.CreatedAt), ms(x.ExpiresAt))
	case access.RecordLicense:
		l := r.License
		im.counts[[2]string{l.AppID, "licenses"}]++
		return im.exec(ctx, `INSERT INTO licenses (id, app_id, code_hint, minutes, grants_lifetime_access,
			revokes_lifetime_access, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, l.ID, l.AppID, l.CodeHint, l.Grant.Minutes,
			boolInt(l.Grant.GrantsLifetimeAccess), boolInt(l.Grant.RevokesLifetimeAccess), l.Note, ms(l.CreatedAt))
	case access.RecordLicenseUse:
		u, g := r.LicenseUse, r.LicenseUse.Grant
		if err := im.exec(ctx, `INSERT INTO license_uses (license_id, app_id, user_id, username, activation_id, occurred_at,
			sign_up, minutes, grants_lifetime_access, revokes_lifetime_access) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			u.LicenseID, u.AppID, u.UserID, u.Username, u.ActivationID, ms(u.OccurredAt), boolInt(u.SignUp),
			g.Minutes, boolInt(g.GrantsLifetimeAccess), boolInt(g.RevokesLifetimeAccess)); err != nil {
			return err
		}
		return markUsed(ctx, im.tx, u.LicenseID)
	case access.RecordVariable:
		v := r.Variable
		return im.exec(ctx, `INSERT INTO variables (app_id, name, value) VALUES (?, ?, ?)`, v.AppID, v.Name, v.Value)
	case access.RecordFileChunk:
		c := r.FileChunk
		if c.FileID != im.fileID {
			im.fileID, im.chunkN, im.buf = c.FileID, 0, im.buf[:0]
		}
		im.buf = append(im.buf, c.Data...)
		for len(im.buf) >= chunkSize {
			if err := im.chunk(ctx, im.buf[:chunkSize]); err != nil {
				return err
			}
			im.buf = im.buf[:copy(im.buf, im.buf[chunkSize:])]
		}
		return nil
	case access.RecordFile:
		f := r.File
		if f.ID != im.fileID {
			im.fileID, im.chunkN, im.buf = f.ID, 0, im.buf[:0]
		}
		if len(im.buf) > 0 || im.chunkN == 0 {
			if err := im.chunk(ctx, im.buf); err != nil {
				return err
			}
		}
		im.fileID, im.buf = "", im.buf[:0]
		return im.exec(ctx, `INSERT INTO files (id, app_id, name, mime_type, is_encrypted, size, sha256, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, f.ID, f.AppID, f.Name, f.MimeType, boolInt(f.IsEncrypted), f.Size, f.SHA256, ms(f.CreatedAt))
	case access.RecordSigningKey:
		k := r.SigningKey
		return im.exec(ctx, `INSERT INTO signing_keys (id, app_id, generation, public_key, sealed_seed, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			k.ID, k.AppID, k.Generation, []byte(k.PublicKey), k.SealedSeed, ms(k.CreatedAt))
	case access.RecordWebhook:
		return im.exec(ctx, insertWebhook, webhookArgs(r.Webhook)...)
	case access.RecordWebhookDelivery:
		return im.exec(ctx, insertDelivery, deliveryArgs(r.WebhookDelivery)...)
	case access.RecordWebhookAttempt:
		return im.exec(ctx, insertAttempt, attemptArgs(r.WebhookAttempt)...)
	case access.RecordApp:
		a := r.App
		return im.exec(ctx, `INSERT INTO apps (`+appColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, appArgs(a)...)
	}
	return fmt.Errorf("cannot import a %s record", r.Type)
}

func (im *sqliteImport) chunk(ctx context.Context, data []byte) error {
	if data == nil {
		data = []byte{} // an empty blob, not NULL
	}
	err := im.exec(ctx, `INSERT INTO file_chunks (file_id, n, data) VALUES (?, ?, ?)`, im.fileID, im.chunkN, data)
	im.chunkN++
	return err
}

// finish writes the counters the records added up to.
func (im *sqliteImport) finish(ctx context.Context) error {
	for k, n := range im.counts {
		if err := count(ctx, im.tx, k[0], k[1], n); err != nil {
			return err
		}
	}
	return nil
}

// importErr maps a constraint an imported record breaks (other than a
// taken key) to access.ErrInvalidRecord.
func importErr(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT &&
		se.Code() != sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY && se.Code() != sqlite3.SQLITE_CONSTRAINT_UNIQUE {
		return fmt.Errorf("%w: %v", access.ErrInvalidRecord, err)
	}
	return err
}
