package mongostore

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

type deviceDoc struct {
	ID           string    `bson:"_id"`
	UserID       string    `bson:"user_id"`
	AppID        string    `bson:"app_id"`
	Slot         int       `bson:"slot"`
	HardwareID   string    `bson:"hardware_id"`
	RegisteredAt time.Time `bson:"registered_at"`
}

func deviceID(userID string, slot int) string { return fmt.Sprintf("%s/%d", userID, slot) }

// InsertDevice implements access.DeviceStore: the slot is the unique key.
func (s *Store) InsertDevice(ctx context.Context, d *access.Device) error {
	return s.insert(ctx, collDevices, deviceDoc{ID: deviceID(d.UserID, d.Slot), UserID: d.UserID, AppID: d.AppID,
		Slot: d.Slot, HardwareID: d.HardwareID, RegisteredAt: d.RegisteredAt})
}

// DeviceInSlot implements access.DeviceStore.
func (s *Store) DeviceInSlot(ctx context.Context, userID string, slot int) (*access.Device, error) {
	var d deviceDoc
	if err := s.byID(ctx, collDevices, deviceID(userID, slot), &d); err != nil {
		return nil, err
	}
	return &access.Device{UserID: d.UserID, AppID: d.AppID, Slot: d.Slot, HardwareID: d.HardwareID, RegisteredAt: d.RegisteredAt.UTC()}, nil
}

// DeleteDevices implements access.DeviceStore.
func (s *Store) DeleteDevices(ctx context.Context, userID string) error {
	return s.deleteWhere(ctx, collDevices, bsonEq("user_id", userID))
}

type sessionDoc struct {
	ID         string    `bson:"_id"`
	AppID      string    `bson:"app_id"`
	UserID     string    `bson:"user_id"`
	HardwareID string    `bson:"hardware_id,omitempty"`
	CreatedAt  time.Time `bson:"created_at"`
	// CreatedNanos is CreatedAt to the nanosecond (a BSON date keeps
	// milliseconds): it orders a user's sessions made in one millisecond.
	CreatedNanos int64     `bson:"created_ns,omitempty"`
	ExpiresAt    time.Time `bson:"expires_at"`
}

// createdAt is the session's creation time, to the nanosecond when known.
func (d *sessionDoc) createdAt() time.Time {
	if d.CreatedNanos != 0 {
		return time.Unix(0, d.CreatedNanos).UTC()
	}
	return d.CreatedAt.UTC()
}

// InsertSession implements access.SessionStore.
func (s *Store) InsertSession(ctx context.Context, x *access.Session) error {
	return s.insert(ctx, collSessions, sessionDoc{ID: x.TokenHash, AppID: x.AppID, UserID: x.UserID,
		HardwareID: x.HardwareID, CreatedAt: x.CreatedAt, CreatedNanos: x.CreatedAt.UnixNano(), ExpiresAt: x.ExpiresAt})
}

// SessionByHash implements access.SessionStore.
func (s *Store) SessionByHash(ctx context.Context, tokenHash string) (*access.Session, error) {
	var d sessionDoc
	if err := s.byID(ctx, collSessions, tokenHash, &d); err != nil {
		return nil, err
	}
	return &access.Session{TokenHash: d.ID, AppID: d.AppID, UserID: d.UserID, HardwareID: d.HardwareID,
		CreatedAt: d.CreatedAt.UTC(), ExpiresAt: d.ExpiresAt.UTC()}, nil
}

// DeleteSession implements access.SessionStore.
func (s *Store) DeleteSession(ctx context.Context, tokenHash string) error {
	return s.deleteByID(ctx, collSessions, tokenHash)
}

// DeleteUserSessions implements access.SessionStore.
func (s *Store) DeleteUserSessions(ctx context.Context, userID string) error {
	return s.deleteWhere(ctx, collSessions, bsonEq("user_id", userID))
}

// UserSessions implements access.SessionStore.
func (s *Store) UserSessions(ctx context.Context, userID string) ([]access.Session, error) {
	var docs []sessionDoc
	opts := options.Find().SetSort(bson.D{{Key: "created_at", Value: 1}, {Key: "created_ns", Value: 1}, {Key: "_id", Value: 1}})
	if err := findAll(ctx, s.c(collSessions), bsonEq("user_id", userID), opts, &docs); err != nil {
		return nil, err
	}
	out := make([]access.Session, len(docs))
	for i, d := range docs {
		out[i] = access.Session{TokenHash: d.ID, AppID: d.AppID, UserID: d.UserID, HardwareID: d.HardwareID,
			CreatedAt: d.createdAt(), ExpiresAt: d.ExpiresAt.UTC()}
	}
	return out, nil
}

// DeleteSessionsExpiredBefore implements access.SessionStore.
func (s *Store) DeleteSessionsExpiredBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := s.c(collSessions).DeleteMany(ctx, bson.D{{Key: "expires_at", Value: bson.D{{Key: "$lt", Value: t}}}})
	if err != nil {
		return 0, mapErr(err)
	}
	return res.DeletedCount, nil
}

func bsonEq(key string, v any) bson.D { return bson.D{{Key: key, Value: v}} }
