// Package mongostore implements the access storage interfaces on MongoDB, or
// on any server that speaks its protocol (FerretDB, which the tests use).
//
// Every lookup on a request path is an equality match on _id. Listings and
// counts use the indexes EnsureIndexes creates (FerretDB, which tests run
// against, scans instead). Correctness rests on unique-key inserts alone:
// no update reads, changes and writes back a shared document, and a license
// redemption is the ordered sequence of access.RedeemInOrder.
package mongostore

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

// Collection names.
const (
	collApps         = "apps"
	collAccounts     = "accounts"
	collUsers        = "users"
	collDeletedUsers = "deleted_users"
	collBans         = "bans"
	collLastLogins   = "last_logins"
	collLedger       = "ledger"
	collMemberships  = "memberships"
	collLicenses     = "licenses"
	collLicenseUses  = "license_uses"
	collDevices      = "devices"
	collSessions     = "sessions"
	collVariables    = "variables"
	collFiles        = "files"
	bucketFiles      = "file_contents"
	collFailures     = "failures"
	collKnownSources = "known_sources"
	collAudit        = "audit_log"
	collAdmins       = "admins"
	collTOTPSteps    = "admin_totp_steps"
	collAdminSess    = "admin_sessions"
	collSellerKeys   = "seller_keys"
)

// Store is the MongoDB implementation of access.Store.
type Store struct {
	db *mongo.Database
}

var _ access.Store = (*Store)(nil)

// New returns a Store over db. Call EnsureIndexes once before serving.
func New(db *mongo.Database) *Store { return &Store{db: db} }

// EnsureIndexes creates the collections' indexes; it is idempotent. The
// unique ones carry correctness; the others only speed up administrative
// listings on MongoDB.
func (s *Store) EnsureIndexes(ctx context.Context) error {
	// Every collection exists from the start, so an engine-specific step
	// that runs after this one (FerretDB's _id index in tests) covers all.
	for _, name := range []string{collApps, collAccounts, collUsers, collDeletedUsers, collBans, collLastLogins, collLedger,
		collMemberships, collLicenses, collLicenseUses, collDevices, collSessions, collVariables, collFiles, bucketFiles + ".files", bucketFiles + ".chunks",
		collFailures, collKnownSources, collAudit,
		collAdmins, collTOTPSteps, collAdminSess, collSellerKeys, collChanges, collWebhooks, collDeliveries, collAttempts, collSigningKeys, collJournal} {
		if err := s.db.CreateCollection(ctx, name); err != nil && !isNamespaceExists(err) {
			return fmt.Errorf("creating collection %s: %w", name, err)
		}
	}
	type index struct {
		coll   string
		keys   bson.D
		unique bool
	}
	for _, ix := range []index{
		{collApps, bson.D{{Key: "api_key", Value: 1}}, true},
		{collUsers, bson.D{{Key: "app_id", Value: 1}, {Key: "username_key", Value: 1}, {Key: "_id", Value: 1}}, false},
		{collLicenses, bson.D{{Key: "app_id", Value: 1}, {Key: "_id", Value: 1}}, false},
		{collLicenses, bson.D{{Key: "app_id", Value: 1}, {Key: "used", Value: 1}, {Key: "_id", Value: 1}}, false},
		{collLicenseUses, bson.D{{Key: "app_id", Value: 1}, {Key: "_id", Value: 1}}, false},
		{collLicenseUses, bson.D{{Key: "user_id", Value: 1}}, false},
		{collLicenseUses, bson.D{{Key: "app_id", Value: 1}, {Key: "occurred_at", Value: 1}}, false},
		{collUsers, bson.D{{Key: "app_id", Value: 1}, {Key: "created_at", Value: 1}}, false},
		{collMemberships, bson.D{{Key: "app_id", Value: 1}, {Key: "is_lifetime", Value: 1}, {Key: "expires_at", Value: 1}}, false},
		{collLedger, bson.D{{Key: "user_id", Value: 1}}, false},
		{collSessions, bson.D{{Key: "user_id", Value: 1}}, false},
		{collSessions, bson.D{{Key: "expires_at", Value: 1}}, false},
		{collDevices, bson.D{{Key: "user_id", Value: 1}}, false},
		{collVariables, bson.D{{Key: "app_id", Value: 1}}, false},
		{collFiles, bson.D{{Key: "app_id", Value: 1}}, false},
		{collFailures, bson.D{{Key: "key", Value: 1}, {Key: "at", Value: 1}}, false},
		{collFailures, bson.D{{Key: "at", Value: 1}}, false},
		{collAudit, bson.D{{Key: "app_id", Value: 1}, {Key: "action", Value: 1}, {Key: "_id", Value: 1}}, false},
		{collAudit, bson.D{{Key: "app_id", Value: 1}, {Key: "user_id", Value: 1}, {Key: "_id", Value: 1}}, false},
		{collAudit, bson.D{{Key: "at", Value: 1}}, false},
		{collAdminSess, bson.D{{Key: "username", Value: 1}}, false},
		{collSellerKeys, bson.D{{Key: "secret_hash", Value: 1}}, true},
		{collSellerKeys, bson.D{{Key: "app_id", Value: 1}, {Key: "created_at", Value: 1}}, false},
		{collChanges, bson.D{{Key: "at", Value: 1}}, false},
		{collWebhooks, bson.D{{Key: "app_id", Value: 1}, {Key: "created_at", Value: 1}}, false},
		{collDeliveries, bson.D{{Key: "webhook_id", Value: 1}, {Key: "_id", Value: 1}}, false},
		{collDeliveries, bson.D{{Key: "status", Value: 1}, {Key: "next_attempt_at", Value: 1}}, false},
		{collDeliveries, bson.D{{Key: "created_at", Value: 1}}, false},
		{collAttempts, bson.D{{Key: "delivery_id", Value: 1}}, false},
		{collSigningKeys, bson.D{{Key: "app_id", Value: 1}, {Key: "generation", Value: 1}}, true},
		{collJournal, bson.D{{Key: "at", Value: 1}, {Key: "_id", Value: 1}}, false},
	} {
		m := mongo.IndexModel{Keys: ix.keys, Options: options.Index().SetUnique(ix.unique)}
		if _, err := s.db.Collection(ix.coll).Indexes().CreateOne(ctx, m); err != nil {
			return fmt.Errorf("creating index on %s: %w", ix.coll, err)
		}
	}
	// Licenses written before the used mark existed are unused until the
	// claim check of the listing says otherwise.
	if _, err := s.c(collLicenses).UpdateMany(ctx, bson.D{{Key: "used", Value: bson.D{{Key: "$exists", Value: false}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "used", Value: false}}}}); err != nil {
		return fmt.Errorf("marking licenses: %w", err)
	}
	return nil
}

func (s *Store) c(name string) *mongo.Collection { return s.db.Collection(name) }

// insert inserts doc, mapping a unique-key violation to access.ErrDuplicate.
func (s *Store) insert(ctx context.Context, coll string, doc any) error {
	_, err := s.c(coll).InsertOne(ctx, doc)
	return mapErr(err)
}

// byID decodes the document with this _id into out.
func (s *Store) byID(ctx context.Context, coll, id string, out any) error {
	return mapErr(s.c(coll).FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(out))
}

func (s *Store) deleteByID(ctx context.Context, coll, id string) error {
	_, err := s.c(coll).DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
	return mapErr(err)
}

// setExisting sets fields of the document filter matches; ErrNotFound
// when none does.
func (s *Store) setExisting(ctx context.Context, coll string, filter, set bson.D) error {
	res, err := s.c(coll).UpdateOne(ctx, filter, bson.D{{Key: "$set", Value: set}})
	if err != nil {
		return mapErr(err)
	}
	return foundIf(res.MatchedCount)
}

// replaceExisting replaces the document filter matches with doc;
// ErrNotFound when none does.
func (s *Store) replaceExisting(ctx context.Context, coll string, filter bson.D, doc any) error {
	res, err := s.c(coll).ReplaceOne(ctx, filter, doc)
	if err != nil {
		return mapErr(err)
	}
	return foundIf(res.MatchedCount)
}

// deleteExisting deletes the document filter matches; ErrNotFound when
// none does.
func (s *Store) deleteExisting(ctx context.Context, coll string, filter bson.D) error {
	res, err := s.c(coll).DeleteOne(ctx, filter)
	if err != nil {
		return mapErr(err)
	}
	return foundIf(res.DeletedCount)
}

// foundIf is ErrNotFound when a write touched no document.
func foundIf(documents int64) error {
	if documents == 0 {
		return access.ErrNotFound
	}
	return nil
}

func (s *Store) deleteWhere(ctx context.Context, coll string, filter bson.D) error {
	_, err := s.c(coll).DeleteMany(ctx, filter)
	return mapErr(err)
}

// findAll decodes every document matching filter into out (a slice pointer).
func findAll(ctx context.Context, c *mongo.Collection, filter bson.D, opts *options.FindOptionsBuilder, out any) error {
	cur, err := c.Find(ctx, filter, opts)
	if err != nil {
		return mapErr(err)
	}
	return mapErr(cur.All(ctx, out))
}

func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mongo.ErrNoDocuments):
		return access.ErrNotFound
	case mongo.IsDuplicateKeyError(err):
		return fmt.Errorf("%w: %v", access.ErrDuplicate, err)
	}
	return err
}

// isNamespaceExists reports a "collection already exists" error (code 48).
func isNamespaceExists(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && ce.Code == 48
}

func isDuplicate(err error) bool { return errors.Is(err, access.ErrDuplicate) }

func isNotFound(err error) bool { return errors.Is(err, access.ErrNotFound) }
