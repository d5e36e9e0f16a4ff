package client

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrBadSignature is wrapped by every failure to verify a signed answer or
// an offline token: no signature, an unknown key, a signature that does
// not verify, another request's method, path or nonce, a nonce seen
// before, a timestamp out of bounds, or a body that is not the signed one.
var ErrBadSignature = errors.New("signature not valid")

// DefaultMaxResponseAge bounds how far an answer's signed timestamp may be
// from the client's clock.
const DefaultMaxResponseAge = 5 * time.Minute

// The headers of signed answers (docs/api.md, "Signed responses").
const (
	headerNonce     = "X-App-Access-Nonce"
	headerSignature = "App-Access-Signature"
)

// WithSigningKeys makes the client verify every answer with the
// application's public keys (from GET /app_access/apps/{id}: pass all the
// published ones, so that a rotation does not break older clients). Each
// request sends a fresh random nonce; an answer that is unsigned, signed
// by another key, for another request (its method, target, nonce,
// credentials, device, range or body), replayed, older than the bound
// (WithMaxResponseAge), with other bound headers (Content-Type, ETag,
// Content-Range, Retry-After) or with another body fails with an error
// wrapping ErrBadSignature. New fails when a key is not 32 bytes long.
func WithSigningKeys(keys ...ed25519.PublicKey) Option {
	return func(c *Client) {
		c.verifier = &verifier{keys: map[string]ed25519.PublicKey{}, maxAge: DefaultMaxResponseAge, now: time.Now, seen: map[string]time.Time{}}
		for i, k := range keys {
			if len(k) != ed25519.PublicKeySize {
				if c.optionErr == nil {
					c.optionErr = fmt.Errorf("client: signing key %d is %d bytes long, not an Ed25519 public key (%d bytes)", i+1, len(k), ed25519.PublicKeySize)
				}
				continue
			}
			c.verifier.keys[KeyID(k)] = k
		}
	}
}

// WithMaxResponseAge sets how far a signed answer's timestamp may be from
// the client's clock (default DefaultMaxResponseAge); it applies with
// WithSigningKeys, which must come first.
func WithMaxResponseAge(d time.Duration) Option {
	return func(c *Client) {
		if c.verifier != nil && d > 0 {
			c.verifier.maxAge = d
		}
	}
}

// KeyID is the key id of an Ed25519 public key: the unpadded base64url of
// the first 12 bytes of its SHA-256.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// verifier checks signed answers.
type verifier struct {
	keys   map[string]ed25519.PublicKey
	maxAge time.Duration
	now    func() time.Time

	mu        sync.Mutex
	seen      map[string]time.Time // accepted nonces, until they are older than 2 × maxAge
	lastSweep time.Time            // when seen was last pruned
}

// newNonce is a fresh random nonce: 16 bytes, unpadded base64url.
func newNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// signature is a parsed App-Access-Signature header.
type signature struct {
	keyID string
	ts    int64
	salt  string
	index int
	proof []byte
	sig   []byte
}

func parseSignature(h string) (signature, error) {
	var s signature
	version, rest, ok := strings.Cut(h, "; ")
	if !ok || version != "v2" {
		return s, errors.New("no v2 signature")
	}
	var tsSet, idxSet, proofSet bool
	for _, part := range strings.Split(rest, "; ") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "kid":
			s.keyID = v
		case "ts":
			ts, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return s, errors.New("bad timestamp")
			}
			s.ts, tsSet = ts, true
		case "salt":
			if raw, err := base64.RawURLEncoding.DecodeString(v); err != nil || len(raw) != 16 {
				return s, errors.New("bad salt")
			}
			s.salt = v
		case "idx":
			idx, err := strconv.Atoi(v)
			if err != nil || idx < 0 {
				return s, errors.New("bad leaf index")
			}
			s.index, idxSet = idx, true
		case "proof":
			proof, err := base64.StdEncoding.DecodeString(v)
			if err != nil || len(proof)%32 != 0 || len(proof) > 32*16 {
				return s, errors.New("bad proof encoding")
			}
			s.proof, proofSet = proof, true
		case "sig":
			// Cut stops at the first "=": v keeps the padding.
			sig, err := base64.StdEncoding.DecodeString(v)
			if err != nil || len(sig) != ed25519.SignatureSize {
				return s, errors.New("bad signature encoding")
			}
			s.sig = sig
		}
	}
	if s.keyID == "" || !tsSet || s.salt == "" || !idxSet || !proofSet || s.sig == nil {
		return s, errors.New("incomplete signature header")
	}
	return s, nil
}

// answer is a signed answer and what the client knows of its request.
type answer struct {
	req         *http.Request
	res         *http.Response
	nonce       string    // the nonce sent
	requestBody []byte    // the SHA-256 of the request body sent
	received    time.Time // when the answer's headers came
}

// The headers a signature covers, in the order of their lines (docs/api.md).
var (
	boundRequestHeaders = []string{"Authorization", "If-Range", "Range", "X-Api-Key", "X-Api-License-Code",
		"X-Api-Password", "X-Api-Username", "X-Hardware-Id"}
	boundAnswerHeaders = []string{"Content-Range", "Content-Type", "Etag", "Retry-After"}
)

// headerLines hashes "name:value\n" for each name, the name in lower case
// and the value the header's first ("" when absent), then tail.
func headerLines(h http.Header, names []string, tail string) string {
	d := sha256.New()
	for _, name := range names {
		// As sent and as the server reads it: without surrounding spaces.
		fmt.Fprintf(d, "%s:%s\n", strings.ToLower(name), textproto.TrimString(h.Get(name)))
	}
	d.Write([]byte(tail))
	return hex.EncodeToString(d.Sum(nil))
}

// signingInput is the byte string a signed answer covers (docs/api.md).
func signingInput(a *answer, s *signature, bodySHA256 []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "app-access-response-v2\n%s\n%s\n%d\n%s\n%d\n%s\n%s\n%s\n%s\n%s",
		a.req.Method, a.req.URL.RequestURI(), a.res.StatusCode, a.nonce, s.ts, s.keyID, s.salt,
		headerLines(a.req.Header, boundRequestHeaders, hex.EncodeToString(a.requestBody)),
		headerLines(a.res.Header, boundAnswerHeaders, ""), hex.EncodeToString(bodySHA256))
	return b.Bytes()
}

// leafHash is the Merkle leaf of a signing input: SHA-256(0x00 || input).
func leafHash(input []byte) []byte {
	h := sha256.New()
	h.Write([]byte{0})
	h.Write(input)
	return h.Sum(nil)
}

// merkleRoot climbs from a leaf to the root of its batch: at level i the
// sibling proof[32i:32i+32] is on the right when bit i of index is 0.
// Nodes are SHA-256(0x01 || left || right).
func merkleRoot(leaf []byte, index int, proof []byte) ([]byte, bool) {
	depth := len(proof) / 32
	if index>>depth != 0 {
		return nil, false
	}
	h := leaf
	for i := range depth {
		sib := proof[32*i : 32*i+32]
		n := sha256.New()
		n.Write([]byte{1})
		if index>>i&1 == 0 {
			n.Write(h)
			n.Write(sib)
		} else {
			n.Write(sib)
			n.Write(h)
		}
		h = n.Sum(nil)
	}
	return h, true
}

// check verifies an answer's headers and the SHA-256 of its body against
// its request; its age is taken when its headers came.
func (v *verifier) check(a *answer, bodySHA256 []byte) error {
	h := a.res.Header.Get(headerSignature)
	if h == "" {
		return fmt.Errorf("%w: the answer is not signed", ErrBadSignature)
	}
	s, err := parseSignature(h)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	key, ok := v.keys[s.keyID]
	if !ok {
		return fmt.Errorf("%w: signed by unknown key %q", ErrBadSignature, s.keyID)
	}
	nonce := a.nonce
	if got := a.res.Header.Get(headerNonce); got != nonce {
		return fmt.Errorf("%w: the answer is for another request (nonce)", ErrBadSignature)
	}
	root, ok := merkleRoot(leafHash(signingInput(a, &s, bodySHA256)), s.index, s.proof)
	if !ok || !ed25519.Verify(key, []byte("app-access-responses-v2\n"+hex.EncodeToString(root)), s.sig) {
		return fmt.Errorf("%w: the signature does not match the answer", ErrBadSignature)
	}
	now := a.received // the client's clock when the headers came
	if now.IsZero() {
		now = v.now()
	}
	at := time.Unix(s.ts, 0)
	if d := now.Sub(at); d > v.maxAge || d < -v.maxAge {
		return fmt.Errorf("%w: signed at %v, more than %v from now", ErrBadSignature, at.UTC(), v.maxAge)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	// Pruned once per maxAge, not on every answer: a replay that passes
	// the time check above was first accepted within 2 × maxAge, so
	// keeping entries longer refuses nothing more.
	if now.Sub(v.lastSweep) > v.maxAge {
		v.lastSweep = now
		for n, t := range v.seen {
			if now.Sub(t) > 2*v.maxAge {
				delete(v.seen, n)
			}
		}
	}
	if _, replayed := v.seen[nonce]; replayed {
		return fmt.Errorf("%w: the nonce was answered before (replay)", ErrBadSignature)
	}
	v.seen[nonce] = now
	return nil
}

// verifiedBody reads an answer's body to the end, hashing it, and checks
// the signature at its end: no byte is trusted until then.
type verifiedBody struct {
	body  io.ReadCloser
	hash  hash.Hash
	check func(sum []byte) error
	err   error
}

func (b *verifiedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.body.Read(p)
	b.hash.Write(p[:n])
	if err == io.EOF {
		if cerr := b.check(b.hash.Sum(nil)); cerr != nil {
			b.err = cerr
			return n, cerr
		}
	}
	return n, err
}

func (b *verifiedBody) Close() error { return b.body.Close() }
