package sqlitestore

import (
	"context"

	"github.com/appaccess/appaccess/accessapi/access"
)

var _ access.SigningKeyStore = (*Store)(nil)

// InsertSigningKey implements access.SigningKeyStore; the primary key and
// the unique (app_id, generation) make a taken one ErrDuplicate.
func (s *Store) InsertSigningKey(ctx context.Context, k *access.SigningKey) error {
	_, err := s.exec(ctx, `INSERT INTO signing_keys (id, app_id, generation, public_key, sealed_seed, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		k.ID, k.AppID, k.Generation, []byte(k.PublicKey), k.SealedSeed, ms(k.CreatedAt))
	return err
}

// SigningKeys implements access.SigningKeyStore.
func (s *Store) SigningKeys(ctx context.Context, appID string) ([]access.SigningKey, error) {
	rows, err := s.query(ctx, `SELECT id, app_id, generation, public_key, sealed_seed, created_at FROM signing_keys
		WHERE app_id = ? ORDER BY generation`, appID)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.SigningKey
	for rows.Next() {
		var k access.SigningKey
		var pub []byte
		var at int64
		if err := rows.Scan(&k.ID, &k.AppID, &k.Generation, &pub, &k.SealedSeed, &at); err != nil {
			return nil, mapErr(err)
		}
		k.PublicKey, k.CreatedAt = pub, fromMS(at)
		out = append(out, k)
	}
	return out, mapErr(rows.Err())
}

// DeleteSigningKey implements access.SigningKeyStore.
func (s *Store) DeleteSigningKey(ctx context.Context, appID, keyID string) error {
	return mustAffect(s.exec(ctx, `DELETE FROM signing_keys WHERE app_id = ? AND id = ?`, appID, keyID))
}
