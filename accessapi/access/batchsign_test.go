package access_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// header fields of an App-Access-Signature value.
func signatureFields(t *testing.T, hdr string) map[string]string {
	t.Helper()
	version, rest, _ := strings.Cut(hdr, "; ")
	if version != "v2" {
		t.Fatalf("%q: not v2", hdr)
	}
	out := map[string]string{}
	for _, part := range strings.Split(rest, "; ") {
		k, v, _ := strings.Cut(part, "=")
		out[k] = v
	}
	return out
}

func TestSignResponse_ConcurrentAnswersAreBatchedAndEachVerifies(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	signer, err := f.svc.ResponseSigner(ctx, f.app.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := f.svc.SigningKeys(ctx, f.app.ID)
	pub := keys[0].PublicKey
	at := time.Unix(1_800_000_000, 0)
	// More at once than one batch holds (256), three times over: the
	// overflow waits for the next batch, and pooled leaves are reused.
	const n = 600
	headers := make([]string, n)
	for range 3 {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				sum := sha256.Sum256([]byte(fmt.Sprint("body ", i)))
				headers[i] = signer.SignResponse(batchFacts(i, sum[:]), at)
			})
		}
		wg.Wait()
		checkBatchedAnswers(t, headers, keys[0].ID, pub, at)
	}
}

// batchFacts are the facts of the i-th answer of a concurrent round.
func batchFacts(i int, bodySum []byte) *access.SignedFacts {
	return &access.SignedFacts{Method: "GET", Target: "/app_context", Status: 200, Nonce: fmt.Sprint("nonce-", i), Body: bodySum}
}

// checkBatchedAnswers verifies each answer of a concurrent round, and that
// no other leaf verifies with its proof.
func checkBatchedAnswers(t *testing.T, headers []string, kid string, pub ed25519.PublicKey, at time.Time) {
	t.Helper()
	batched := 0
	for i, hdr := range headers {
		h := signatureFields(t, hdr)
		idx, _ := strconv.Atoi(h["idx"])
		proof, err1 := base64.StdEncoding.DecodeString(h["proof"])
		sig, err2 := base64.StdEncoding.DecodeString(h["sig"])
		if err1 != nil || err2 != nil || h["kid"] != kid || h["ts"] != "1800000000" {
			t.Fatalf("answer %d: %q", i, hdr)
		}
		if len(proof) > 0 {
			batched++
		}
		if len(proof) > 8*32 {
			t.Fatalf("answer %d: a proof of %d hashes, more than a batch of 256 needs", i, len(proof)/32)
		}
		sum := sha256.Sum256([]byte(fmt.Sprint("body ", i)))
		if len(h["salt"]) != 22 {
			t.Fatalf("answer %d: salt %q, want 16 bytes in base64url", i, h["salt"])
		}
		leaf := access.LeafHash(access.ResponseSigningInput(batchFacts(i, sum[:]), at.Unix(), kid, h["salt"]))
		root, ok := access.MerkleRoot(leaf, idx, proof)
		if !ok || !ed25519.Verify(pub, access.RootMessage(root[:]), sig) {
			t.Fatalf("answer %d does not verify: %q", i, hdr)
		}
		// Another answer's leaf does not verify with this proof.
		other := access.LeafHash([]byte("another answer"))
		if root, _ := access.MerkleRoot(other, idx, proof); ed25519.Verify(pub, access.RootMessage(root[:]), sig) {
			t.Fatalf("answer %d: another leaf verifies", i)
		}
	}
	t.Logf("%d of %d answers were signed in batches of more than one", batched, len(headers))
}
