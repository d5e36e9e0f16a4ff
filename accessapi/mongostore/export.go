package mongostore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

var (
	_ access.Exporter = (*Store)(nil)
	_ access.Importer = (*Store)(nil)
)

// collImports holds the marker of an import in progress.
const collImports = "imports"

// exportPage is the documents one export query reads.
const exportPage = 1000

// Export implements access.Exporter: each collection in pages of _id.
// Without transactions the export is not one snapshot: export a quiet
// database.
func (s *Store) Export(ctx context.Context, emit func(*access.Record) error) error {
	for _, t := range access.ExportOrder {
		coll, conv := exportConv(t)
		if err := s.exportColl(ctx, coll, func(raw bson.Raw) (*access.Record, error) {
			r, err := conv(raw)
			if r != nil {
				r.Type = t
			}
			return r, err
		}, emit); err != nil {
			return fmt.Errorf("%s: %w", coll, err)
		}
	}
	return nil
}

// decode unmarshals raw into a new D.
func decode[D any](raw bson.Raw) (*D, error) {
	var d D
	return &d, bson.Unmarshal(raw, &d)
}

// exportConv names the collection of a record type and turns its
// documents into records.
func exportConv(t access.RecordType) (string, func(bson.Raw) (*access.Record, error)) {
	switch t {
	case access.RecordAccount:
		return collAccounts, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[accountDoc](raw)
			return &access.Record{Account: &access.User{ID: d.UserID, AppID: d.AppID, Username: d.Username,
				PasswordHash: d.PasswordHash, CreatedAt: d.CreatedAt.UTC()}}, err
		}
	case access.RecordUser:
		return collUsers, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[userDoc](raw)
			return &access.Record{User: d.user()}, err
		}
	case access.RecordDeletedUser:
		return collDeletedUsers, func(raw bson.Raw) (*access.Record, error) {
			id, ok := raw.Lookup("_id").StringValueOK()
			if !ok {
				return nil, errors.New("a tombstone without a string _id")
			}
			return &access.Record{DeletedUser: id}, nil
		}
	case access.RecordBan:
		return collBans, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[banDoc](raw)
			return &access.Record{Ban: &access.Ban{UserID: d.ID, Reason: d.Reason, At: d.At.UTC()}}, err
		}
	case access.RecordLastLogin:
		return collLastLogins, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[lastLoginDoc](raw)
			return &access.Record{LastLogin: &access.LastLogin{UserID: d.ID, IP: d.IP, At: d.At.UTC()}}, err
		}
	case access.RecordActivation:
		return collLedger, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[ledgerDoc](raw)
			a := d.activation()
			return &access.Record{Activation: &a}, err
		}
	case access.RecordDevice:
		return collDevices, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[deviceDoc](raw)
			return &access.Record{Device: &access.Device{UserID: d.UserID, AppID: d.AppID, Slot: d.Slot,
				HardwareID: d.HardwareID, RegisteredAt: d.RegisteredAt.UTC()}}, err
		}
	case access.RecordSession:
		return collSessions, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[sessionDoc](raw)
			return &access.Record{Session: &access.Session{TokenHash: d.ID, AppID: d.AppID, UserID: d.UserID,
				HardwareID: d.HardwareID, CreatedAt: d.createdAt(), ExpiresAt: d.ExpiresAt.UTC()}}, err
		}
	case access.RecordLicense:
		return collLicenses, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[licenseDoc](raw)
			l := d.license()
			return &access.Record{License: &l}, err
		}
	case access.RecordLicenseUse:
		return collLicenseUses, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[licenseUseDoc](raw)
			return &access.Record{LicenseUse: &access.ExportedUse{
				LicenseUse: access.LicenseUse{LicenseID: d.ID, AppID: d.AppID, UserID: d.UserID, Username: d.Username,
					ActivationID: d.ActivationID, OccurredAt: d.OccurredAt.UTC(), SignUp: d.SignUp},
				Grant: access.Grant{Minutes: d.Minutes, GrantsLifetimeAccess: d.GrantsLifetimeAccess, RevokesLifetimeAccess: d.RevokesLifetimeAccess},
			}}, err
		}
	case access.RecordVariable:
		return collVariables, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[variableDoc](raw)
			return &access.Record{Variable: &access.Variable{AppID: d.AppID, Name: d.Name, Value: d.Value}}, err
		}
	case access.RecordFile:
		return collFiles, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[fileDoc](raw)
			f := d.file()
			return &access.Record{File: &f}, err
		}
	case access.RecordSigningKey:
		return collSigningKeys, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[signingKeyDoc](raw)
			return &access.Record{SigningKey: d.key()}, err
		}
	case access.RecordWebhook:
		return collWebhooks, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[webhookDoc](raw)
			return &access.Record{Webhook: d.webhook()}, err
		}
	case access.RecordWebhookDelivery:
		return collDeliveries, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[deliveryDoc](raw)
			dl := d.delivery()
			return &access.Record{WebhookDelivery: &dl}, err
		}
	case access.RecordWebhookAttempt:
		return collAttempts, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[attemptDoc](raw)
			a := d.attempt()
			return &access.Record{WebhookAttempt: &a}, err
		}
	case access.RecordApp:
		return collApps, func(raw bson.Raw) (*access.Record, error) {
			d, err := decode[appDoc](raw)
			return &access.Record{App: d.app()}, err
		}
	}
	panic(fmt.Sprintf("mongostore: no collection for record type %s", t))
}

// exportColl emits every document of a collection, a page at a time in
// _id order.
func (s *Store) exportColl(ctx context.Context, coll string, conv func(bson.Raw) (*access.Record, error), emit func(*access.Record) error) error {
	var last any
	for {
		filter := bson.D{}
		if last != nil {
			filter = bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: last}}}}
		}
		var docs []bson.Raw
		if err := findAll(ctx, s.c(coll), filter, options.Find().SetSort(bsonEq("_id", 1)).SetLimit(exportPage), &docs); err != nil {
			return err
		}
		for _, raw := range docs {
			r, err := conv(raw)
			if err != nil {
				return err
			}
			if err := emit(r); err != nil {
				return err
			}
			last = raw.Lookup("_id")
		}
		if len(docs) < exportPage {
			return nil
		}
	}
}

// importedColls are the collections an import writes (and an empty store
// has no documents in). The event journal is not one: its records are
// transient (see access.EventJournal).
var importedColls = []string{collApps, collAccounts, collUsers, collDeletedUsers, collBans, collLastLogins, collLedger,
	collMemberships, collLicenses, collLicenseUses, collDevices, collSessions, collVariables, collFiles,
	bucketFiles + ".files", bucketFiles + ".chunks", collSigningKeys, collWebhooks, collDeliveries, collAttempts}

// importMarker is the _id of the document that says an import is under way.
const importMarker = "import"

// Import implements access.Importer without transactions: a marker
// document says an import is under way, the records are written in export
// order (applications last, so no client reaches one before its data is
// in), and a failure deletes everything written, the store having been
// empty. An import cut short by a crash leaves the marker, and the next
// import is refused until the database is dropped.
func (s *Store) Import(ctx context.Context, next func() (*access.Record, error)) error {
	if err := s.checkEmpty(ctx); err != nil {
		return err
	}
	if err := s.insert(ctx, collImports, bson.D{{Key: "_id", Value: importMarker}, {Key: "started_at", Value: time.Now()}}); err != nil {
		if errors.Is(err, access.ErrDuplicate) {
			return fmt.Errorf("%w: another import is under way, or one did not finish (then drop the database and import again)", access.ErrNotEmpty)
		}
		return fmt.Errorf("marking the import: %w", err)
	}
	err := s.importRecords(ctx, next)
	if err != nil {
		// The caller may have gone: clean up regardless.
		cleanup := context.WithoutCancel(ctx)
		for _, coll := range importedColls {
			if _, derr := s.c(coll).DeleteMany(cleanup, bson.D{}); derr != nil {
				return errors.Join(err, fmt.Errorf("removing the partial import from %s (drop the database): %w", coll, derr))
			}
		}
	}
	if derr := s.deleteByID(context.WithoutCancel(ctx), collImports, importMarker); derr != nil {
		return errors.Join(err, fmt.Errorf("removing the import marker: %w", derr))
	}
	return err
}

func (s *Store) importRecords(ctx context.Context, next func() (*access.Record, error)) error {
	w := access.NewRecordWriter(s)
	for {
		r, err := next()
		if errors.Is(err, io.EOF) {
			return w.Close(ctx)
		}
		if err == nil {
			err = w.Write(ctx, r)
		}
		if err != nil {
			_ = w.Close(ctx)
			return err
		}
	}
}

// importing reports whether the import marker is there: an import is
// under way, or one did not finish.
func (s *Store) importing(ctx context.Context) (bool, error) {
	var raw bson.Raw
	err := s.byID(ctx, collImports, importMarker, &raw)
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading the import marker: %w", err)
	}
	return true, nil
}

// checkEmpty returns access.ErrNotEmpty when any collection an import
// writes, the seller keys (not exported, but a key would act on an
// imported application of its app_id) or the import marker has a
// document.
func (s *Store) checkEmpty(ctx context.Context) error {
	for _, coll := range append([]string{collImports, collSellerKeys}, importedColls...) {
		var raw bson.Raw
		err := s.c(coll).FindOne(ctx, bson.D{}).Decode(&raw)
		if isNotFound(mapErr(err)) {
			continue
		}
		if err != nil {
			return fmt.Errorf("checking %s: %w", coll, err)
		}
		if coll == collImports {
			return fmt.Errorf("%w: an import is under way, or one did not finish (then drop the database and import again)", access.ErrNotEmpty)
		}
		return access.ErrNotEmpty
	}
	return nil
}
