package access

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"math/bits"
	"runtime"
	"slices"
	"sync"
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
//	root message = "app-access-responses-v2\n" || lower-hex(root)

// maxBatch bounds the answers one signature covers (a proof of maxDepth
// hashes).
const (
	maxBatch = 1 << maxDepth
	maxDepth = 8
)

const rootMessagePrefix = "app-access-responses-v2\n"

// RootMessage is the byte string the signature of a batch covers.
func RootMessage(root []byte) []byte {
	return hex.AppendEncode([]byte(rootMessagePrefix), root)
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

// signedLeaf is one answer waiting for its signature, and then holding it:
// the batch's signature, the leaf's index and its proof. It is pooled, and
// holds everything it returns, so a signed answer allocates nothing here.
type signedLeaf struct {
	leaf  [32]byte
	wake  chan struct{}
	lead  bool // woken to sign the next batch, not with a result
	sig   [ed25519.SignatureSize]byte
	index int
	depth int
	path  [maxDepth * 32]byte
}

// proof is the sibling hashes from the leaf up to the root.
func (l *signedLeaf) proof() []byte { return l.path[:32*l.depth] }

var signedLeaves = sync.Pool{New: func() any { return &signedLeaf{wake: make(chan struct{}, 1)} }}

// release returns l to the pool once its signature has been read.
func (l *signedLeaf) release() { signedLeaves.Put(l) }

// batcher signs the leaves handed to it, in batches while some wait.
type batcher struct {
	key     ed25519.PrivateKey
	mu      sync.Mutex
	busy    bool
	pending []*signedLeaf
	// spare is an empty array for the next pending list: the batches
	// reuse two arrays instead of allocating one each.
	spare []*signedLeaf
	// levels is the tree of the batch being signed, kept for the next:
	// only the leader (one at a time, handed over under mu) touches it.
	levels [maxDepth + 1][][32]byte
	// observer is told of each signature and the answers it covers; nil
	// without metrics.
	observer Observer
}

// sign returns leaf signed, in the batch it ended up in; the caller
// releases it after reading it.
func (b *batcher) sign(leaf [32]byte) *signedLeaf {
	r := signedLeaves.Get().(*signedLeaf)
	r.leaf, r.lead = leaf, false
	b.mu.Lock()
	b.pending = append(b.pending, r)
	if b.busy {
		b.mu.Unlock()
		<-r.wake
		if !r.lead {
			return r
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
	batch := b.pending
	if len(batch) > maxBatch {
		b.pending = append(b.spare[:0], batch[maxBatch:]...)
		batch = batch[:maxBatch]
	} else {
		b.pending = b.spare[:0]
	}
	b.spare = nil
	b.mu.Unlock()
	b.signBatch(batch)
	for _, x := range batch {
		if x != r {
			x.wake <- struct{}{}
		}
	}
	clear(batch)
	b.mu.Lock()
	b.spare = batch[:0]
	if len(b.pending) > 0 {
		next := b.pending[0]
		next.lead = true
		next.wake <- struct{}{}
	} else {
		b.busy = false
	}
	b.mu.Unlock()
	return r
}

// signBatch builds the tree of the batch's leaves, signs its root and
// gives each leaf the signature, its index and its proof.
func (b *batcher) signBatch(batch []*signedLeaf) {
	depth := bits.Len(uint(len(batch) - 1)) // 0 for a batch of one
	for d := 0; d <= depth; d++ {
		b.levels[d] = slices.Grow(b.levels[d][:0], 1<<(depth-d))[:1<<(depth-d)]
	}
	leaves := b.levels[0]
	for i, x := range batch {
		leaves[i] = x.leaf
	}
	clear(leaves[len(batch):]) // absent leaves are zero
	for d := 1; d <= depth; d++ {
		below, level := b.levels[d-1], b.levels[d]
		for i := range level {
			level[i] = nodeHash(&below[2*i], &below[2*i+1])
		}
	}
	root := b.levels[depth][0]
	var msg [len(rootMessagePrefix) + 2*sha256.Size]byte
	copy(msg[:], rootMessagePrefix)
	hex.Encode(msg[len(rootMessagePrefix):], root[:])
	sig := ed25519.Sign(b.key, msg[:])
	if b.observer != nil {
		b.observer.ResponsesSigned(len(batch))
	}
	for i, x := range batch {
		copy(x.sig[:], sig)
		x.index, x.depth = i, depth
		for d, j := 0, i; d < depth; d, j = d+1, j/2 {
			copy(x.path[32*d:], b.levels[d][j^1][:])
		}
	}
}
