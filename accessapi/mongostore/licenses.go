package mongostore

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

type licenseDoc struct {
	ID                    string    `bson:"_id"`
	AppID                 string    `bson:"app_id"`
	CodeHint              string    `bson:"code_hint"`
	Minutes               *int64    `bson:"minutes"`
	GrantsLifetimeAccess  bool      `bson:"grants_lifetime_access"`
	RevokesLifetimeAccess bool      `bson:"revokes_lifetime_access"`
	Note                  string    `bson:"note,omitempty"`
	CreatedAt             time.Time `bson:"created_at"`
	// Used is set after the claim (MarkLicenseUsed); the claim decides.
	Used bool `bson:"used"`
}

func (d *licenseDoc) license() access.License {
	return access.License{ID: d.ID, AppID: d.AppID, CodeHint: d.CodeHint, Note: d.Note, CreatedAt: d.CreatedAt.UTC(),
		Grant: access.Grant{Minutes: d.Minutes, GrantsLifetimeAccess: d.GrantsLifetimeAccess, RevokesLifetimeAccess: d.RevokesLifetimeAccess}}
}

// InsertLicenses implements access.LicenseStore. The batch is unordered;
// a code that exists already makes the whole call fail with ErrDuplicate
// after the others were inserted.
func (s *Store) InsertLicenses(ctx context.Context, ls []access.License) error {
	docs := make([]any, len(ls))
	for i, l := range ls {
		docs[i] = licenseDoc{ID: l.ID, AppID: l.AppID, CodeHint: l.CodeHint, Minutes: l.Grant.Minutes,
			GrantsLifetimeAccess: l.Grant.GrantsLifetimeAccess, RevokesLifetimeAccess: l.Grant.RevokesLifetimeAccess,
			Note: l.Note, CreatedAt: l.CreatedAt}
	}
	_, err := s.c(collLicenses).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	return mapErr(err)
}

// LicenseByID implements access.LicenseStore.
func (s *Store) LicenseByID(ctx context.Context, licenseID string) (*access.License, error) {
	var d licenseDoc
	if err := s.byID(ctx, collLicenses, licenseID, &d); err != nil {
		return nil, err
	}
	l := d.license()
	return &l, nil
}

// Licenses implements access.LicenseStore: the application's licenses in
// _id order after the cursor, on {app_id, _id}; the unused ones on
// {app_id, used, _id}; the used ones from their claims on {app_id, _id}.
func (s *Store) Licenses(ctx context.Context, appID string, f access.LicenseFilter, after string, limit int) ([]access.License, error) {
	filter := bson.D{{Key: "app_id", Value: appID}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: after}}}}
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(limit))
	if f.Used != nil && *f.Used {
		var uses []struct {
			ID string `bson:"_id"`
		}
		if err := findAll(ctx, s.c(collLicenseUses), filter, opts.SetProjection(bson.D{{Key: "_id", Value: 1}}), &uses); err != nil {
			return nil, err
		}
		ids := make([]string, len(uses))
		for i, u := range uses {
			ids[i] = u.ID
		}
		filter = bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}
		opts = options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})
	} else if f.Used != nil {
		filter = bson.D{{Key: "app_id", Value: appID}, {Key: "used", Value: false}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: after}}}}
	}
	var docs []licenseDoc
	if err := findAll(ctx, s.c(collLicenses), filter, opts, &docs); err != nil {
		return nil, err
	}
	out := make([]access.License, len(docs))
	for i := range docs {
		out[i] = docs[i].license()
	}
	return out, nil
}

// DeleteLicense implements access.LicenseStore.
func (s *Store) DeleteLicense(ctx context.Context, licenseID string) error {
	return s.deleteByID(ctx, collLicenses, licenseID)
}

// licenseUseDoc is keyed by the license: its insert is what makes a code
// single-use.
type licenseUseDoc struct {
	ID                    string    `bson:"_id"`
	AppID                 string    `bson:"app_id"`
	UserID                string    `bson:"user_id"`
	Username              string    `bson:"username"`
	ActivationID          string    `bson:"activation_id"`
	OccurredAt            time.Time `bson:"occurred_at"`
	SignUp                bool      `bson:"sign_up"`
	Minutes               *int64    `bson:"minutes"`
	GrantsLifetimeAccess  bool      `bson:"grants_lifetime_access"`
	RevokesLifetimeAccess bool      `bson:"revokes_lifetime_access"`
}

// InsertLicenseUse implements access.LicenseStore.
func (s *Store) InsertLicenseUse(ctx context.Context, u *access.LicenseUse, g access.Grant) error {
	return s.insert(ctx, collLicenseUses, licenseUseDoc{ID: u.LicenseID, AppID: u.AppID, UserID: u.UserID,
		Username: u.Username, ActivationID: u.ActivationID, OccurredAt: u.OccurredAt, SignUp: u.SignUp,
		Minutes: g.Minutes, GrantsLifetimeAccess: g.GrantsLifetimeAccess, RevokesLifetimeAccess: g.RevokesLifetimeAccess})
}

// MarkLicenseUsed implements access.LicenseStore: one idempotent $set.
func (s *Store) MarkLicenseUsed(ctx context.Context, licenseID string) error {
	_, err := s.c(collLicenses).UpdateOne(ctx, bsonEq("_id", licenseID), bson.D{{Key: "$set", Value: bsonEq("used", true)}})
	return mapErr(err)
}

// RedeemLicense implements access.LicenseStore without a transaction: the
// ordered unique-insert sequence, which any later request can finish.
func (s *Store) RedeemLicense(ctx context.Context, r *access.Redemption) error {
	return access.RedeemInOrder(ctx, s, r)
}

// LicenseUseByID implements access.LicenseStore.
func (s *Store) LicenseUseByID(ctx context.Context, licenseID string) (*access.LicenseUse, access.Grant, error) {
	var d licenseUseDoc
	if err := s.byID(ctx, collLicenseUses, licenseID, &d); err != nil {
		return nil, access.Grant{}, err
	}
	return &access.LicenseUse{LicenseID: d.ID, AppID: d.AppID, UserID: d.UserID, Username: d.Username,
			ActivationID: d.ActivationID, OccurredAt: d.OccurredAt.UTC(), SignUp: d.SignUp},
		access.Grant{Minutes: d.Minutes, GrantsLifetimeAccess: d.GrantsLifetimeAccess, RevokesLifetimeAccess: d.RevokesLifetimeAccess}, nil
}
