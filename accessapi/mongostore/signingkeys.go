package mongostore

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

// collSigningKeys holds applications' signing keys, one document each, by
// key id; the unique {app_id, generation} index lets one of two concurrent
// creators of a generation win.
const collSigningKeys = "signing_keys"

var _ access.SigningKeyStore = (*Store)(nil)

type signingKeyDoc struct {
	ID         string    `bson:"_id"`
	AppID      string    `bson:"app_id"`
	Generation int       `bson:"generation"`
	PublicKey  []byte    `bson:"public_key"`
	SealedSeed []byte    `bson:"sealed_seed"`
	CreatedAt  time.Time `bson:"created_at"`
}

// InsertSigningKey implements access.SigningKeyStore.
func (s *Store) InsertSigningKey(ctx context.Context, k *access.SigningKey) error {
	return s.insert(ctx, collSigningKeys, signingKeyDoc{ID: k.ID, AppID: k.AppID, Generation: k.Generation,
		PublicKey: k.PublicKey, SealedSeed: k.SealedSeed, CreatedAt: k.CreatedAt})
}

// SigningKeys implements access.SigningKeyStore.
func (s *Store) SigningKeys(ctx context.Context, appID string) ([]access.SigningKey, error) {
	var docs []signingKeyDoc
	opts := options.Find().SetSort(bson.D{{Key: "generation", Value: 1}})
	if err := findAll(ctx, s.c(collSigningKeys), bsonEq("app_id", appID), opts, &docs); err != nil {
		return nil, err
	}
	out := make([]access.SigningKey, 0, len(docs))
	for i := range docs {
		out = append(out, *docs[i].key())
	}
	return out, nil
}

func (d *signingKeyDoc) key() *access.SigningKey {
	return &access.SigningKey{ID: d.ID, AppID: d.AppID, Generation: d.Generation, PublicKey: d.PublicKey,
		SealedSeed: d.SealedSeed, CreatedAt: d.CreatedAt.UTC()}
}

// DeleteSigningKey implements access.SigningKeyStore.
func (s *Store) DeleteSigningKey(ctx context.Context, appID, keyID string) error {
	return s.deleteExisting(ctx, collSigningKeys, bson.D{{Key: "_id", Value: keyID}, {Key: "app_id", Value: appID}})
}
