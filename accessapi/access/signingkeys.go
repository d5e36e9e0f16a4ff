package access

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

// SigningAlgorithm is the algorithm of every signing key.
const SigningAlgorithm = "Ed25519"

// SigningKey is one of an application's Ed25519 keys. Its private half,
// the 32-byte seed, is stored sealed (SealedSeed) and never leaves the
// server. The key with the highest generation is the active one, which
// signs; the others stay published until they are retired.
type SigningKey struct {
	// ID is the key id: SigningKeyID of the public key.
	ID    string
	AppID string
	// Generation is 1 for an application's first key and grows by one with
	// every rotation; (AppID, Generation) is unique.
	Generation int
	PublicKey  ed25519.PublicKey
	// SealedSeed is the seed sealed with AES-256-GCM under the signing-key
	// key (see sealSeed): a 12-byte nonce, then the cipher text and tag.
	SealedSeed []byte
	CreatedAt  time.Time
}

// SigningKeyStore keeps applications' signing keys. Retiring a key deletes
// it. The unique key (app, generation) decides concurrent creations: of two
// instances creating an application's first key, or rotating it, one wins
// and the other gets ErrDuplicate.
type SigningKeyStore interface {
	// InsertSigningKey stores k; ErrDuplicate when its ID or its (app,
	// generation) is taken.
	InsertSigningKey(ctx context.Context, k *SigningKey) error
	// SigningKeys lists an application's keys, oldest generation first.
	SigningKeys(ctx context.Context, appID string) ([]SigningKey, error)
	// DeleteSigningKey removes one of an application's keys; ErrNotFound
	// when it has no such key.
	DeleteSigningKey(ctx context.Context, appID, keyID string) error
}

// SigningKeyID is the id of an Ed25519 public key: the first 12 bytes of
// its SHA-256, in unpadded base64url (16 characters). A client can compute
// it from the public key it was given.
func SigningKeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// signingKeyKey derives the key that seals signing-key seeds from the file
// key (all zeros without one, for tests), apart from the code key.
func signingKeyKey(fileKey []byte) []byte {
	return deriveKey(fileKey, "app-access signing keys v1")
}

// seedAAD binds a sealed seed to its application and key id, so a sealed
// seed copied to another key or application does not open.
func seedAAD(appID, keyID string) []byte {
	return []byte("app-access signing key v1\x00" + appID + "\x00" + keyID)
}

// newSigningKey makes a key of generation gen for an application, its seed
// sealed under key.
func newSigningKey(key []byte, appID string, gen int, now time.Time) (*SigningKey, ed25519.PrivateKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating signing key: %w", err)
	}
	k := &SigningKey{ID: SigningKeyID(pub), AppID: appID, Generation: gen, PublicKey: pub, CreatedAt: now}
	if k.SealedSeed, err = sealSecret(key, priv.Seed(), seedAAD(appID, k.ID)); err != nil {
		return nil, nil, fmt.Errorf("sealing signing key: %w", err)
	}
	return k, priv, nil
}

// openSeed unseals k's private key and checks that it is k's.
func openSeed(key []byte, k *SigningKey) (ed25519.PrivateKey, error) {
	seed, err := openSecret(key, k.SealedSeed, seedAAD(k.AppID, k.ID))
	if err != nil {
		return nil, fmt.Errorf("opening signing key %s (another file key?): %w", k.ID, err)
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("signing key %s: seed of %d bytes", k.ID, len(seed))
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if !priv.Public().(ed25519.PublicKey).Equal(k.PublicKey) {
		return nil, fmt.Errorf("signing key %s: the seed is not the public key's", k.ID)
	}
	return priv, nil
}

// keyRing is an application's published keys and its active signer.
type keyRing struct {
	keys   []SigningKey // oldest generation first; the last is active
	signer *Signer
}

// keyRing returns an application's keys, from cache when fresh. An
// application without any (created before signing keys existed, or
// imported without them) gets its first key now: of concurrent creators
// the unique (app, generation) key lets one win, and the others read the
// winner's.
func (s *Service) keyRing(ctx context.Context, appID string) (*keyRing, error) {
	if r, ok := s.signingKeys.get(appID); ok {
		return r, nil
	}
	stamp := s.signingKeys.stamp()
	keys, err := s.store.SigningKeys(ctx, appID)
	if err != nil {
		return nil, wrapStore(err, "reading signing keys")
	}
	if len(keys) == 0 {
		if err := s.createFirstSigningKey(ctx, appID); err != nil && !errors.Is(err, ErrDuplicate) {
			return nil, wrapStore(err, "creating signing key")
		}
		if keys, err = s.store.SigningKeys(ctx, appID); err != nil {
			return nil, wrapStore(err, "reading signing keys")
		}
		if len(keys) == 0 {
			return nil, fmt.Errorf("application %s: no signing key after creating one", appID)
		}
	}
	r, err := s.ringOf(keys)
	if err != nil {
		return nil, err
	}
	s.signingKeys.setStamped(appID, r, stamp)
	return r, nil
}

// ringOf opens the active key of keys (oldest first).
func (s *Service) ringOf(keys []SigningKey) (*keyRing, error) {
	active := &keys[len(keys)-1]
	priv, err := openSeed(s.signKey, active)
	if err != nil {
		return nil, err
	}
	return &keyRing{keys: keys, signer: newSigner(active.ID, priv, s.observer)}, nil
}

// SigningKeys returns an application's published keys, oldest first; the
// last is the active one.
func (s *Service) SigningKeys(ctx context.Context, appID string) ([]SigningKey, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	r, err := s.keyRing(ctx, appID)
	if err != nil {
		return nil, err
	}
	return r.keys, nil
}

// RotateSigningKey gives an application a new active key. The previous
// keys stay published, so clients that know only the old key keep
// verifying until it is retired.
func (s *Service) RotateSigningKey(ctx context.Context, appID string) (*SigningKey, error) {
	app, err := s.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	if _, err := s.keyRing(ctx, appID); err != nil { // an application's first key is generation 1
		return nil, err
	}
	for range 3 {
		keys, err := s.store.SigningKeys(ctx, appID)
		if err != nil {
			return nil, wrapStore(err, "reading signing keys")
		}
		gen := 1
		if len(keys) > 0 {
			gen = keys[len(keys)-1].Generation + 1
		}
		k, _, err := newSigningKey(s.signKey, appID, gen, s.Now())
		if err != nil {
			return nil, err
		}
		err = s.commit(ctx, func(ctx context.Context) error { return s.store.InsertSigningKey(ctx, k) },
			Event{Kind: EventSigningKeyRotated, AppID: appID, APIKey: app.APIKey, Target: k.ID,
				After: map[string]any{"key_id": k.ID, "generation": k.Generation, "algorithm": SigningAlgorithm}})
		if errors.Is(err, ErrDuplicate) {
			continue // another rotation took this generation: read again
		}
		if err != nil {
			return nil, wrapStore(err, "rotating signing key")
		}
		return k, nil
	}
	return nil, Refusal(CodeConflict, "The key is being rotated by another request; try again.")
}

// RetireSigningKey stops publishing one of an application's keys. The
// active key cannot be retired: rotate first.
func (s *Service) RetireSigningKey(ctx context.Context, appID, keyID string) error {
	app, err := s.App(ctx, appID)
	if err != nil {
		return err
	}
	keys, err := s.store.SigningKeys(ctx, appID)
	if err != nil {
		return wrapStore(err, "reading signing keys")
	}
	i := -1
	for j := range keys {
		if keys[j].ID == keyID {
			i = j
		}
	}
	switch {
	case i < 0:
		return notFound("signing key")
	case i == len(keys)-1:
		return Refusal(CodeConflict, "The active signing key cannot be retired; rotate the key first.")
	}
	return s.commit(ctx, func(ctx context.Context) error {
		if err := s.store.DeleteSigningKey(ctx, appID, keyID); err != nil && !errors.Is(err, ErrNotFound) {
			return wrapStore(err, "retiring signing key")
		}
		return nil
	}, Event{Kind: EventSigningKeyRetired, AppID: appID, APIKey: app.APIKey, Target: keyID,
		Before: map[string]any{"key_id": keyID, "generation": keys[i].Generation}})
}

// createFirstSigningKey gives an application its first key (generation 1):
// of concurrent creators one wins, the others get ErrDuplicate.
func (s *Service) createFirstSigningKey(ctx context.Context, appID string) error {
	k, _, err := newSigningKey(s.signKey, appID, 1, s.Now())
	if err != nil {
		return err
	}
	return s.store.InsertSigningKey(ctx, k)
}
