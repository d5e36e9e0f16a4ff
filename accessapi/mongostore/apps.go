package mongostore

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

type appDoc struct {
	ID                string    `bson:"_id"`
	Name              string    `bson:"name"`
	APIKey            string    `bson:"api_key"`
	SecretHash        string    `bson:"secret_hash"`
	DeviceAuth        bool      `bson:"device_auth"`
	AnonymousAccess   bool      `bson:"anonymous_access"`
	MaxDevices        int       `bson:"max_devices"`
	MinPasswordLength int       `bson:"min_password_length"`
	SessionTTLSeconds int64     `bson:"session_ttl_seconds"`
	CreatedAt         time.Time `bson:"created_at"`

	TokenRequiresHardwareID bool `bson:"token_requires_hardware_id,omitempty"`
	MaxSessions             int  `bson:"max_sessions,omitempty"`

	Throttle access.ThrottlePolicy `bson:"throttle"`

	OfflineTokenTTLSeconds int64 `bson:"offline_token_ttl_seconds,omitempty"`
}

func toAppDoc(a *access.App) appDoc {
	return appDoc{ID: a.ID, Name: a.Name, APIKey: a.APIKey, SecretHash: a.SecretHash, DeviceAuth: a.DeviceAuth,
		AnonymousAccess: a.AnonymousAccess, MaxDevices: a.MaxDevices, MinPasswordLength: a.MinPasswordLength,
		SessionTTLSeconds: int64(a.SessionTTL / time.Second), CreatedAt: a.CreatedAt, TokenRequiresHardwareID: a.TokenRequiresHardwareID,
		MaxSessions: a.MaxSessions, Throttle: a.Throttle, OfflineTokenTTLSeconds: int64(a.OfflineTokenTTL / time.Second)}
}

func (d *appDoc) app() *access.App {
	return &access.App{ID: d.ID, Name: d.Name, APIKey: d.APIKey, SecretHash: d.SecretHash, DeviceAuth: d.DeviceAuth,
		AnonymousAccess: d.AnonymousAccess, MaxDevices: d.MaxDevices, MinPasswordLength: d.MinPasswordLength,
		SessionTTL: time.Duration(d.SessionTTLSeconds) * time.Second, CreatedAt: d.CreatedAt.UTC(),
		TokenRequiresHardwareID: d.TokenRequiresHardwareID, MaxSessions: d.MaxSessions, Throttle: d.Throttle,
		OfflineTokenTTL: time.Duration(d.OfflineTokenTTLSeconds) * time.Second}
}

// InsertApp implements access.AppStore.
func (s *Store) InsertApp(ctx context.Context, a *access.App) error {
	return s.insert(ctx, collApps, toAppDoc(a))
}

// ReplaceApp implements access.AppStore. Only administrators write
// applications, so a whole-document replace does not race with clients.
func (s *Store) ReplaceApp(ctx context.Context, a *access.App) error {
	return s.replaceExisting(ctx, collApps, bson.D{{Key: "_id", Value: a.ID}}, toAppDoc(a))
}

// DeleteApp implements access.AppStore without a transaction: the seller
// keys first (by app_id, on the seller_keys index), then the application.
// A crash between the two leaves an application without keys, whose
// deletion the operator repeats; the other order could leave keys of a
// deleted application (AuthenticateSellerKey refuses those too).
func (s *Store) DeleteApp(ctx context.Context, appID string) error {
	if err := s.deleteWhere(ctx, collSellerKeys, bsonEq("app_id", appID)); err != nil {
		return fmt.Errorf("deleting the seller keys: %w", err)
	}
	return s.deleteByID(ctx, collApps, appID)
}

// AppByID implements access.AppStore.
func (s *Store) AppByID(ctx context.Context, appID string) (*access.App, error) {
	var d appDoc
	if err := s.byID(ctx, collApps, appID, &d); err != nil {
		return nil, err
	}
	return d.app(), nil
}

// AppByKey implements access.AppStore. Applications are few and cached, so
// this one lookup is not by _id.
func (s *Store) AppByKey(ctx context.Context, apiKey string) (*access.App, error) {
	var d appDoc
	if err := mapErr(s.c(collApps).FindOne(ctx, bson.D{{Key: "api_key", Value: apiKey}}).Decode(&d)); err != nil {
		return nil, err
	}
	return d.app(), nil
}

// Apps implements access.AppStore.
func (s *Store) Apps(ctx context.Context) ([]access.App, error) {
	var docs []appDoc
	if err := findAll(ctx, s.c(collApps), bson.D{}, options.Find().SetSort(bson.D{{Key: "created_at", Value: 1}}), &docs); err != nil {
		return nil, err
	}
	apps := make([]access.App, len(docs))
	for i := range docs {
		apps[i] = *docs[i].app()
	}
	return apps, nil
}

// AppCounts implements access.AppStore with counts on indexes: licenses on
// {app_id, _id}, used ones by their claims, users on {app_id, username_key,
// _id}, active members on the membership summaries. (FerretDB scans.)
func (s *Store) AppCounts(ctx context.Context, appID string, now time.Time) (access.AppCounts, error) {
	var c access.AppCounts
	for _, q := range []struct {
		coll   string
		filter bson.D
		into   *int64
	}{
		{collLicenses, bsonEq("app_id", appID), &c.Licenses},
		{collLicenseUses, bsonEq("app_id", appID), &c.LicensesUsed},
		{collUsers, bsonEq("app_id", appID), &c.Users},
		{collMemberships, bson.D{{Key: "app_id", Value: appID}, {Key: "is_lifetime", Value: true}}, &c.ActiveMembers},
	} {
		n, err := s.c(q.coll).CountDocuments(ctx, q.filter)
		if err != nil {
			return c, mapErr(err)
		}
		*q.into = n
	}
	n, err := s.c(collMemberships).CountDocuments(ctx, bson.D{{Key: "app_id", Value: appID}, {Key: "is_lifetime", Value: false},
		{Key: "expires_at", Value: bson.D{{Key: "$gt", Value: now}}}})
	if err != nil {
		return c, mapErr(err)
	}
	c.ActiveMembers += n
	c.LicensesUnused = c.Licenses - c.LicensesUsed
	return c, nil
}

// ActivityByDay implements access.AppStore: two counts a day, of users by
// creation time and of license uses by time, each on its index.
func (s *Store) ActivityByDay(ctx context.Context, appID string, from time.Time, days int) ([]access.DayActivity, error) {
	start := from.UTC().Truncate(24 * time.Hour)
	out := make([]access.DayActivity, days)
	for i := range out {
		d := start.AddDate(0, 0, i)
		out[i].Day = d
		for _, q := range []struct {
			coll, field string
			into        *int64
		}{{collUsers, "created_at", &out[i].SignUps}, {collLicenseUses, "occurred_at", &out[i].Activations}} {
			n, err := s.c(q.coll).CountDocuments(ctx, bson.D{{Key: "app_id", Value: appID},
				{Key: q.field, Value: bson.D{{Key: "$gte", Value: d}, {Key: "$lt", Value: d.AddDate(0, 0, 1)}}}})
			if err != nil {
				return nil, mapErr(err)
			}
			*q.into = n
		}
	}
	return out, nil
}
