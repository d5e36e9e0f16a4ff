package mongostore

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

// accountDoc is the unique (application, username key) claim and the user's
// credentials; its _id is "<app id>/<username key>".
type accountDoc struct {
	ID           string    `bson:"_id"`
	AppID        string    `bson:"app_id"`
	UserID       string    `bson:"user_id"`
	Username     string    `bson:"username"`
	PasswordHash string    `bson:"password_hash,omitempty"`
	CreatedAt    time.Time `bson:"created_at"`
}

type userDoc struct {
	ID          string    `bson:"_id"`
	AppID       string    `bson:"app_id"`
	Username    string    `bson:"username"`
	UsernameKey string    `bson:"username_key"`
	CreatedAt   time.Time `bson:"created_at"`
}

func accountID(appID, usernameKey string) string { return appID + "/" + usernameKey }

// InsertAccount implements access.UserStore.
func (s *Store) InsertAccount(ctx context.Context, u *access.User) error {
	return s.insert(ctx, collAccounts, accountDoc{
		ID: accountID(u.AppID, access.UsernameKey(u.Username)), AppID: u.AppID, UserID: u.ID,
		Username: u.Username, PasswordHash: u.PasswordHash, CreatedAt: u.CreatedAt,
	})
}

// AccountByName implements access.UserStore.
func (s *Store) AccountByName(ctx context.Context, appID, usernameKey string) (*access.User, error) {
	var d accountDoc
	if err := s.byID(ctx, collAccounts, accountID(appID, usernameKey), &d); err != nil {
		return nil, err
	}
	return &access.User{ID: d.UserID, AppID: d.AppID, Username: d.Username, PasswordHash: d.PasswordHash, CreatedAt: d.CreatedAt.UTC()}, nil
}

// DeleteAccount implements access.UserStore.
func (s *Store) DeleteAccount(ctx context.Context, appID, usernameKey string) error {
	return s.deleteByID(ctx, collAccounts, accountID(appID, usernameKey))
}

// SetAccountPassword implements access.UserStore.
func (s *Store) SetAccountPassword(ctx context.Context, appID, usernameKey, passwordHash string) error {
	return s.setExisting(ctx, collAccounts, bsonEq("_id", accountID(appID, usernameKey)),
		bsonEq("password_hash", passwordHash))
}

// UpgradeAccountPassword implements access.UserStore: one update of the
// account by _id, conditional on the hash (atomic on MongoDB, as any
// single-document update is).
func (s *Store) UpgradeAccountPassword(ctx context.Context, appID, usernameKey, oldHash, newHash string) error {
	return s.setExisting(ctx, collAccounts, bson.D{{Key: "_id", Value: accountID(appID, usernameKey)}, {Key: "password_hash", Value: oldHash}},
		bsonEq("password_hash", newHash))
}

// InsertUser implements access.UserStore.
func (s *Store) InsertUser(ctx context.Context, u *access.User) error {
	return s.insert(ctx, collUsers, userDoc{ID: u.ID, AppID: u.AppID, Username: u.Username,
		UsernameKey: access.UsernameKey(u.Username), CreatedAt: u.CreatedAt})
}

// UserByID implements access.UserStore.
func (s *Store) UserByID(ctx context.Context, userID string) (*access.User, error) {
	var d userDoc
	if err := s.byID(ctx, collUsers, userID, &d); err != nil {
		return nil, err
	}
	return d.user(), nil
}

func (d *userDoc) user() *access.User {
	return &access.User{ID: d.ID, AppID: d.AppID, Username: d.Username, CreatedAt: d.CreatedAt.UTC()}
}

// Users implements access.UserStore on {app_id, username_key, _id}; the
// key range starts at the later of the prefix and the cursor.
func (s *Store) Users(ctx context.Context, appID, prefix string, after access.UserCursor, limit int) ([]access.User, error) {
	filter := bson.D{
		{Key: "app_id", Value: appID},
		{Key: "username_key", Value: bson.D{{Key: "$gte", Value: max(prefix, after.UsernameKey)}, {Key: "$lt", Value: access.PrefixEnd(prefix)}}},
		{Key: "$or", Value: bson.A{
			bson.D{{Key: "username_key", Value: bson.D{{Key: "$gt", Value: after.UsernameKey}}}},
			bson.D{{Key: "username_key", Value: after.UsernameKey}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: after.UserID}}}},
		}},
	}
	var docs []userDoc
	opts := options.Find().SetSort(bson.D{{Key: "username_key", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(int64(limit))
	if err := findAll(ctx, s.c(collUsers), filter, opts, &docs); err != nil {
		return nil, err
	}
	users := make([]access.User, len(docs))
	for i := range docs {
		users[i] = *docs[i].user()
	}
	return users, nil
}

// DeleteUser implements access.UserStore.
func (s *Store) DeleteUser(ctx context.Context, userID string) error {
	return s.deleteByID(ctx, collUsers, userID)
}

// MarkUserDeleted implements access.UserStore.
func (s *Store) MarkUserDeleted(ctx context.Context, userID string) error {
	err := s.insert(ctx, collDeletedUsers, bson.D{{Key: "_id", Value: userID}})
	if err != nil && !isDuplicate(err) {
		return err
	}
	return nil
}

// IsUserDeleted implements access.UserStore.
func (s *Store) IsUserDeleted(ctx context.Context, userID string) (bool, error) {
	var d bson.Raw
	err := s.byID(ctx, collDeletedUsers, userID, &d)
	if isNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

type banDoc struct {
	ID     string    `bson:"_id"`
	Reason string    `bson:"reason"`
	At     time.Time `bson:"at"`
}

// InsertBan implements access.BanStore.
func (s *Store) InsertBan(ctx context.Context, b *access.Ban) error {
	return s.insert(ctx, collBans, banDoc{ID: b.UserID, Reason: b.Reason, At: b.At})
}

// BanOf implements access.BanStore.
func (s *Store) BanOf(ctx context.Context, userID string) (*access.Ban, error) {
	var d banDoc
	if err := s.byID(ctx, collBans, userID, &d); err != nil {
		return nil, err
	}
	return &access.Ban{UserID: d.ID, Reason: d.Reason, At: d.At.UTC()}, nil
}

// DeleteBan implements access.BanStore.
func (s *Store) DeleteBan(ctx context.Context, userID string) error {
	return s.deleteByID(ctx, collBans, userID)
}

type lastLoginDoc struct {
	ID string    `bson:"_id"`
	IP string    `bson:"ip"`
	At time.Time `bson:"at"`
}

// RecordLogin implements access.LoginStore: the document holds this one
// fact, so the last writer winning is the intended outcome.
func (s *Store) RecordLogin(ctx context.Context, l *access.LastLogin) error {
	_, err := s.c(collLastLogins).ReplaceOne(ctx, bson.D{{Key: "_id", Value: l.UserID}},
		lastLoginDoc{ID: l.UserID, IP: l.IP, At: l.At}, options.Replace().SetUpsert(true))
	return mapErr(err)
}

// LastLoginOf implements access.LoginStore.
func (s *Store) LastLoginOf(ctx context.Context, userID string) (*access.LastLogin, error) {
	var d lastLoginDoc
	if err := s.byID(ctx, collLastLogins, userID, &d); err != nil {
		return nil, err
	}
	return &access.LastLogin{UserID: d.ID, IP: d.IP, At: d.At.UTC()}, nil
}

// DeleteLogin implements access.LoginStore.
func (s *Store) DeleteLogin(ctx context.Context, userID string) error {
	return s.deleteByID(ctx, collLastLogins, userID)
}
