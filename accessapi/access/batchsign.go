package access

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// Batch signing: an Ed25519 signature costs about as much CPU as the rest
// of a cached token request, so under load the answers waiting for a
// signature are signed together. Their signing inputs are the leaves of a
// Merkle tree (SHA-256, RFC 6962-style domain separation), one signature
// covers the root, and each answer carries its leaf index and the sibling
// hashes that lead from its leaf to the root. An answer signed while no
// other waits is a tree of one leaf: no proof, no delay. A waiting answer
// waits for at most the signature in progress and its own batch's.
//
//	leaf = SHA-256(0x00 || signing input)
//	node = SHA-256(0x01 || left || right)   absent leaves are 32 zero bytes
//	root message = "app-access-responses-v1\n" || lower-hex(root)

// maxBatch bounds the answers one signature covers (a proof of 8 hashes).
const maxBatch = 256

// RootMessage is the byte string the signature of a batch covers.
func RootMessage(root []byte) []byte {
	return hex.AppendEncode([]byte("app-access-responses-v1\n"), root)
}

// LeafHash is the Merkle leaf of a signing input.
func LeafHash(input []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte{0})
	h.Write(input)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func nodeHash(left, right *[32]byte) [32]byte {
	var b [65]byte
	b[0] = 1
	copy(b[1:], left[:])
	copy(b[33:], right[:])
	return sha256.Sum256(b[:])
}

// MerkleRoot recomputes a root from a leaf, its index and its proof (the
// sibling hashes from the leaf up); ok is false for a malformed proof.
func MerkleRoot(leaf [32]byte, index int, proof []byte) (root [32]byte, ok bool) {
	if len(proof)%32 != 0 || index < 0 || index>>(len(proof)/32) != 0 {
		return root, false
	}
	h := leaf
	for i := 0; i < len(proof)/32; i++ {
		var sib [32]byte
		copy(sib[:], proof[32*i:])
		if index>>i&1 == 0 {
			h = nodeHash(&h, &sib)
		} else {
			h = nodeHash(&sib, &h)
		}
	}
	return h, true
}

// signRequest is one answer waiting for its signature.
type signRequest struct {
	leaf  [32]byte
	wake  chan struct{}
	lead  bool // woken to sign the next batch, not with a result
	sig   []byte
	index int
	proof []byte
}

// batcher signs the leaves handed to it, in batches while some wait.
type batcher struct {
	key     ed25519.PrivateKey
	mu      sync.Mutex
	busy    bool
	pending []*signRequest
	// signatures and answers count the work done, for Signer.Counts.
	signatures, answers atomic.Uint64
}

// Counts returns how many signatures the signer made and how many answers
// they covered: their ratio is the mean batch.
func (sg *Signer) Counts() (signatures, answers uint64) {
	return sg.batch.signatures.Load(), sg.batch.answers.Load()
}

var signRequests = sync.Pool{New: func() any { return &signRequest{wake: make(chan struct{}, 1)} }}

// sign returns the signature of the batch leaf ends up in, the leaf's
// index and its proof.
func (b *batcher) sign(leaf [32]byte) (sig []byte, index int, proof []byte) {
	r := signRequests.Get().(*signRequest)
	r.leaf, r.lead, r.sig, r.proof = leaf, false, nil, nil
	defer signRequests.Put(r)
	b.mu.Lock()
	b.pending = append(b.pending, r)
	if b.busy {
		b.mu.Unlock()
		<-r.wake
		if !r.lead {
			return r.sig, r.index, r.proof
		}
	} else {
		b.busy = true
		b.mu.Unlock()
	}
	// This request leads: it signs what waits (itself included), then
	// hands the lead to the first that came meanwhile. It yields first, so
	// that requests ready to run reach this point and join the batch; on
	// an idle server nothing else runs and it goes on at once.
	runtime.Gosched()
	b.mu.Lock()
	n := min(len(b.pending), maxBatch)
	batch := b.pending[:n:n]
	b.pending = append([]*signRequest(nil), b.pending[n:]...)
	b.mu.Unlock()
	b.signBatch(batch)
	b.mu.Lock()
	if len(b.pending) > 0 {
		next := b.pending[0]
		next.lead = true
		next.wake <- struct{}{}
	} else {
		b.busy = false
	}
	b.mu.Unlock()
	for _, x := range batch {
		if x != r {
			x.wake <- struct{}{}
		}
	}
	return r.sig, r.index, r.proof
}

// signBatch builds the tree of the batch's leaves, signs its root and
// gives each request its index and proof.
func (b *batcher) signBatch(batch []*signRequest) {
	depth := bits.Len(uint(len(batch) - 1)) // 0 for a batch of one
	width := 1 << depth
	levels := make([][][32]byte, depth+1)
	levels[0] = make([][32]byte, width)
	for i, x := range batch {
		levels[0][i] = x.leaf
	}
	for d := 1; d <= depth; d++ {
		below := levels[d-1]
		levels[d] = make([][32]byte, len(below)/2)
		for i := range levels[d] {
			levels[d][i] = nodeHash(&below[2*i], &below[2*i+1])
		}
	}
	root := levels[depth][0]
	sig := ed25519.Sign(b.key, RootMessage(root[:]))
	b.signatures.Add(1)
	b.answers.Add(uint64(len(batch)))
	proofs := make([]byte, 32*depth*len(batch)) // one allocation for the batch's proofs
	for i, x := range batch {
		x.sig, x.index = sig, i
		if depth == 0 {
			continue
		}
		x.proof = proofs[32*depth*i : 32*depth*i : 32*depth*(i+1)]
		for d, j := 0, i; d < depth; d, j = d+1, j/2 {
			x.proof = append(x.proof, levels[d][j^1][:]...)
		}
	}
}
