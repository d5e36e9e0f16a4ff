package mongostore

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

// adminDoc is an administrator, by username.
type adminDoc struct {
	Username          string    `bson:"_id"`
	PasswordHash      string    `bson:"password_hash"`
	TOTPSecret        string    `bson:"totp_secret"`
	TOTPEnabled       bool      `bson:"totp_enabled"`
	PendingTOTPSecret string    `bson:"pending_totp_secret"`
	CreatedAt         time.Time `bson:"created_at"`
}

// admin returns the administrator d holds. A document written before
// pending secrets were kept apart holds an enrolment begun and not
// confirmed as a totp_secret not enabled: that secret is the pending one.
func (d *adminDoc) admin() *access.Admin {
	a := &access.Admin{Username: d.Username, PasswordHash: d.PasswordHash, TOTPSecret: d.TOTPSecret,
		TOTPEnabled: d.TOTPEnabled, PendingTOTPSecret: d.PendingTOTPSecret, CreatedAt: d.CreatedAt.UTC()}
	if !a.TOTPEnabled && a.TOTPSecret != "" && a.PendingTOTPSecret == "" {
		a.TOTPSecret, a.PendingTOTPSecret = "", a.TOTPSecret
	}
	return a
}

func toAdminDoc(a *access.Admin) adminDoc {
	return adminDoc{Username: a.Username, PasswordHash: a.PasswordHash, TOTPSecret: a.TOTPSecret, TOTPEnabled: a.TOTPEnabled,
		PendingTOTPSecret: a.PendingTOTPSecret, CreatedAt: a.CreatedAt}
}

// InsertAdmin implements access.AdminStore.
func (s *Store) InsertAdmin(ctx context.Context, a *access.Admin) error {
	return s.insert(ctx, collAdmins, toAdminDoc(a))
}

// AdminByName implements access.AdminStore.
func (s *Store) AdminByName(ctx context.Context, username string) (*access.Admin, error) {
	var d adminDoc
	if err := s.byID(ctx, collAdmins, username, &d); err != nil {
		return nil, err
	}
	return d.admin(), nil
}

// SetAdminTOTP implements access.AdminStore: one update of the TOTP
// fields, on _id and created_at.
func (s *Store) SetAdminTOTP(ctx context.Context, a *access.Admin) error {
	d := toAdminDoc(a)
	return s.setExisting(ctx, collAdmins, bson.D{{Key: "_id", Value: d.Username}, {Key: "created_at", Value: d.CreatedAt}},
		bson.D{{Key: "totp_secret", Value: d.TOTPSecret}, {Key: "totp_enabled", Value: d.TOTPEnabled}, {Key: "pending_totp_secret", Value: d.PendingTOTPSecret}})
}

// SetAdminPassword implements access.AdminStore: one update conditional
// on _id, created_at and the old hash (atomic on MongoDB, as any
// single-document update is).
func (s *Store) SetAdminPassword(ctx context.Context, username string, createdAt time.Time, oldHash, newHash string) error {
	return s.setExisting(ctx, collAdmins, bson.D{{Key: "_id", Value: username}, {Key: "created_at", Value: createdAt},
		{Key: "password_hash", Value: oldHash}}, bsonEq("password_hash", newHash))
}

// Admins implements access.AdminStore.
func (s *Store) Admins(ctx context.Context) ([]access.Admin, error) {
	var docs []adminDoc
	if err := findAll(ctx, s.c(collAdmins), bson.D{}, options.Find().SetSort(bsonEq("_id", 1)), &docs); err != nil {
		return nil, err
	}
	out := make([]access.Admin, 0, len(docs))
	for i := range docs {
		out = append(out, *docs[i].admin())
	}
	return out, nil
}

// DeleteAdmin implements access.AdminStore, with the recorded TOTP steps.
func (s *Store) DeleteAdmin(ctx context.Context, username string) error {
	if err := s.deleteWhere(ctx, collTOTPSteps, bsonEq("username", username)); err != nil {
		return err
	}
	return s.deleteExisting(ctx, collAdmins, bsonEq("_id", username))
}

// totpStepDoc records an accepted TOTP step; its _id is "<username>/<step>",
// so a replay is a duplicate insert.
type totpStepDoc struct {
	ID       string    `bson:"_id"`
	Username string    `bson:"username"`
	At       time.Time `bson:"at"`
}

// InsertTOTPStep implements access.AdminStore.
func (s *Store) InsertTOTPStep(ctx context.Context, username string, step int64, at time.Time) error {
	return s.insert(ctx, collTOTPSteps, totpStepDoc{ID: fmt.Sprintf("%s/%d", username, step), Username: username, At: at})
}

type adminSessionDoc struct {
	TokenHash string    `bson:"_id"`
	Username  string    `bson:"username"`
	CreatedAt time.Time `bson:"created_at"`
	ExpiresAt time.Time `bson:"expires_at"`
}

// InsertAdminSession implements access.AdminStore.
func (s *Store) InsertAdminSession(ctx context.Context, as *access.AdminSession) error {
	return s.insert(ctx, collAdminSess, adminSessionDoc{TokenHash: as.TokenHash, Username: as.Username, CreatedAt: as.CreatedAt, ExpiresAt: as.ExpiresAt})
}

// AdminSessionByHash implements access.AdminStore.
func (s *Store) AdminSessionByHash(ctx context.Context, tokenHash string) (*access.AdminSession, error) {
	var d adminSessionDoc
	if err := s.byID(ctx, collAdminSess, tokenHash, &d); err != nil {
		return nil, err
	}
	return &access.AdminSession{TokenHash: d.TokenHash, Username: d.Username, CreatedAt: d.CreatedAt.UTC(), ExpiresAt: d.ExpiresAt.UTC()}, nil
}

// SetAdminSessionExpiry implements access.AdminStore: a single-field set
// whose last write wins, never an upsert.
func (s *Store) SetAdminSessionExpiry(ctx context.Context, tokenHash string, expiresAt time.Time) error {
	return s.setExisting(ctx, collAdminSess, bsonEq("_id", tokenHash), bsonEq("expires_at", expiresAt))
}

// DeleteAdminSession implements access.AdminStore.
func (s *Store) DeleteAdminSession(ctx context.Context, tokenHash string) error {
	return s.deleteExisting(ctx, collAdminSess, bsonEq("_id", tokenHash))
}

// DeleteAdminSessions implements access.AdminStore.
func (s *Store) DeleteAdminSessions(ctx context.Context, username string) error {
	return s.deleteWhere(ctx, collAdminSess, bsonEq("username", username))
}

// sellerKeyDoc is a seller key, by ID, unique by secret hash.
type sellerKeyDoc struct {
	ID         string    `bson:"_id"`
	AppID      string    `bson:"app_id"`
	Name       string    `bson:"name"`
	Scopes     []string  `bson:"scopes"`
	SecretHash string    `bson:"secret_hash"`
	CreatedAt  time.Time `bson:"created_at"`
	LastUsedAt time.Time `bson:"last_used_at"`
}

func (d *sellerKeyDoc) key() access.SellerKey {
	k := access.SellerKey{ID: d.ID, AppID: d.AppID, Name: d.Name, Scopes: d.Scopes, SecretHash: d.SecretHash, CreatedAt: d.CreatedAt.UTC()}
	if !d.LastUsedAt.IsZero() && d.LastUsedAt.Unix() > 0 {
		k.LastUsedAt = d.LastUsedAt.UTC()
	}
	return k
}

// InsertSellerKey implements access.SellerKeyStore.
func (s *Store) InsertSellerKey(ctx context.Context, k *access.SellerKey) error {
	return s.insert(ctx, collSellerKeys, sellerKeyDoc{ID: k.ID, AppID: k.AppID, Name: k.Name, Scopes: k.Scopes,
		SecretHash: k.SecretHash, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt})
}

// SellerKeyByHash implements access.SellerKeyStore, on the unique
// secret_hash index.
func (s *Store) SellerKeyByHash(ctx context.Context, secretHash string) (*access.SellerKey, error) {
	var d sellerKeyDoc
	if err := mapErr(s.c(collSellerKeys).FindOne(ctx, bsonEq("secret_hash", secretHash)).Decode(&d)); err != nil {
		return nil, err
	}
	k := d.key()
	return &k, nil
}

// SellerKeys implements access.SellerKeyStore.
func (s *Store) SellerKeys(ctx context.Context, appID string) ([]access.SellerKey, error) {
	var docs []sellerKeyDoc
	opts := options.Find().SetSort(bson.D{{Key: "created_at", Value: 1}, {Key: "_id", Value: 1}})
	if err := findAll(ctx, s.c(collSellerKeys), bsonEq("app_id", appID), opts, &docs); err != nil {
		return nil, err
	}
	out := make([]access.SellerKey, 0, len(docs))
	for i := range docs {
		out = append(out, docs[i].key())
	}
	return out, nil
}

// DeleteSellerKey implements access.SellerKeyStore.
func (s *Store) DeleteSellerKey(ctx context.Context, keyID string) error {
	return s.deleteExisting(ctx, collSellerKeys, bsonEq("_id", keyID))
}

// RecordSellerKeyUse implements access.SellerKeyStore: a single-field set
// whose last write wins, like a user's last login.
func (s *Store) RecordSellerKeyUse(ctx context.Context, keyID string, at time.Time) error {
	return s.setExisting(ctx, collSellerKeys, bsonEq("_id", keyID), bsonEq("last_used_at", at))
}

var (
	_ access.AdminStore     = (*Store)(nil)
	_ access.SellerKeyStore = (*Store)(nil)
)
