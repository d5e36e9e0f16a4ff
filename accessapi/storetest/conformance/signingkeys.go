package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

func signingKey(id, appID string, gen int) *access.SigningKey {
	return &access.SigningKey{ID: id, AppID: appID, Generation: gen, PublicKey: bytes.Repeat([]byte{byte(gen)}, 32),
		SealedSeed: []byte("sealed " + id), CreatedAt: epoch.Add(time.Duration(gen) * time.Second)}
}

func testSigningKeys(t *testing.T, s access.Store) {
	ctx := context.Background()
	must(t, s.InsertSigningKey(ctx, signingKey("k2", "A", 2)))
	must(t, s.InsertSigningKey(ctx, signingKey("k1", "A", 1)))
	must(t, s.InsertSigningKey(ctx, signingKey("b1", "B", 1)))
	wantErr(t, s.InsertSigningKey(ctx, signingKey("k3", "A", 2)), access.ErrDuplicate, "taken generation")
	wantErr(t, s.InsertSigningKey(ctx, signingKey("k1", "A", 3)), access.ErrDuplicate, "taken id")

	ks, err := s.SigningKeys(ctx, "A")
	must(t, err)
	if len(ks) != 2 || ks[0].ID != "k1" || ks[1].ID != "k2" {
		t.Fatalf("keys of A = %+v, want k1 then k2", ks)
	}
	k := ks[1]
	if k.AppID != "A" || k.Generation != 2 || !bytes.Equal(k.PublicKey, bytes.Repeat([]byte{2}, 32)) ||
		string(k.SealedSeed) != "sealed k2" || !k.CreatedAt.Equal(epoch.Add(2*time.Second)) {
		t.Fatalf("key = %+v", k)
	}
	if ks, err := s.SigningKeys(ctx, "none"); err != nil || len(ks) != 0 {
		t.Fatalf("keys of an application without any = %v, %v", ks, err)
	}

	wantErr(t, s.DeleteSigningKey(ctx, "B", "k1"), access.ErrNotFound, "retiring another application's key")
	must(t, s.DeleteSigningKey(ctx, "A", "k1"))
	wantErr(t, s.DeleteSigningKey(ctx, "A", "k1"), access.ErrNotFound, "retiring twice")
	if ks, _ := s.SigningKeys(ctx, "A"); len(ks) != 1 || ks[0].ID != "k2" {
		t.Fatalf("after retiring k1: %+v", ks)
	}
}

// testSigningKeyRace: sixteen instances creating an application's first
// key at once; one generation 1 is stored and every loser is told.
func testSigningKeyRace(t *testing.T, s access.Store) {
	ctx := context.Background()
	errs := race(16, func(i int) error {
		return s.InsertSigningKey(ctx, signingKey(fmt.Sprintf("key-%d", i), "A", 1))
	})
	oneWinner(t, errs)
	ks, err := s.SigningKeys(ctx, "A")
	must(t, err)
	if len(ks) != 1 {
		t.Fatalf("%d keys stored, want 1", len(ks))
	}
	for i, err := range errs {
		if err == nil && ks[0].ID != fmt.Sprintf("key-%d", i) {
			t.Fatalf("stored %s, but key-%d won", ks[0].ID, i)
		}
		if err != nil && !errors.Is(err, access.ErrDuplicate) {
			t.Fatal(err)
		}
	}
}
