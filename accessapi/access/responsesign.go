package access

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"time"
)

// Signed responses: every client API answer to a request that names an
// application carries an Ed25519 signature by the application's active key
// (docs/api.md, "Signed responses"):
//
//	App-Access-Signature: v2; kid=<key id>; ts=<unix seconds>; salt=<base64url>; idx=<leaf>; proof=<base64>; sig=<base64>
//
// over the root of a Merkle tree whose leaf is ResponseSigningInput's
// bytes (batchsign.go): one leaf, and so no proof, unless answers wait.

// ResponseSignatureVersion is the version tag of the signature header and
// of the signed bytes.
const ResponseSignatureVersion = "v2"

// MaxNonceLength bounds the client's nonce; a longer one, or one with a
// byte outside printable ASCII, is not echoed and is signed as empty.
const MaxNonceLength = 128

// Signer signs with an application's active key.
type Signer struct {
	KeyID string
	batch batcher // holds the private key
}

func newSigner(keyID string, key ed25519.PrivateKey, o Observer) *Signer {
	return &Signer{KeyID: keyID, batch: batcher{key: key, observer: o}}
}

// ValidNonce reports whether a client's nonce is one the server echoes:
// 1 to MaxNonceLength printable ASCII characters without spaces.
func ValidNonce(n string) bool {
	if n == "" || len(n) > MaxNonceLength {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < 0x21 || n[i] > 0x7e {
			return false
		}
	}
	return true
}

// SignedFacts are what a response signature covers besides the key and
// time (docs/api.md, "What is signed").
type SignedFacts struct {
	Method string // the request method
	Target string // the request target as sent: path and query
	Status int    // the status code sent
	Nonce  string // the client's nonce, "" when none (or not a valid one)
	// Request is RequestBindingSHA256 of the request: the headers that
	// carry credentials, the device and the range, and the body's hash.
	Request [32]byte
	// Headers is AnswerHeadersSHA256 of the answer's headers.
	Headers [32]byte
	// Body is the SHA-256 of the exact body bytes sent.
	Body []byte
}

// BoundRequestHeaders are the request headers a signature covers, in the
// order of the request binding: each line is the lower-case name, ':', the
// header's first value as received ("" when absent) and '\n'. Password
// and code values are covered too: the salt keeps a leaf that another
// answer's proof reveals from being guessed.
var BoundRequestHeaders = []string{"Authorization", "If-Range", "Range", "X-Api-Key", "X-Api-License-Code",
	"X-Api-Password", "X-Api-Username", "X-Hardware-Id"}

// BoundAnswerHeaders are the answer headers a signature covers, lines as
// in BoundRequestHeaders.
var BoundAnswerHeaders = []string{"Content-Range", "Content-Type", "Etag", "Retry-After"}

// RequestBindingSHA256 is the SHA-256 of a request's binding: the lines of
// BoundRequestHeaders read by get, then the lower-case hex SHA-256 of the
// request body (no line feed after it).
func RequestBindingSHA256(get func(name string) string, bodySHA256 []byte) [32]byte {
	var buf [1024]byte
	b := appendHeaderLines(buf[:0], BoundRequestHeaders, get)
	return sha256.Sum256(hex.AppendEncode(b, bodySHA256))
}

// AnswerHeadersSHA256 is the SHA-256 of the lines of BoundAnswerHeaders
// read by get.
func AnswerHeadersSHA256(get func(name string) string) [32]byte {
	var buf [512]byte
	return sha256.Sum256(appendHeaderLines(buf[:0], BoundAnswerHeaders, get))
}

func appendHeaderLines(b []byte, names []string, get func(string) string) []byte {
	for _, name := range names {
		for i := 0; i < len(name); i++ {
			c := name[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
		b = append(b, ':')
		b = append(b, get(name)...)
		b = append(b, '\n')
	}
	return b
}

// ResponseSigningInput is the byte string a response signature covers:
// eleven lines joined by "\n" (no trailing newline): the version tag
// "app-access-response-v2", the request method, the request target, the
// status code, the nonce (empty when none), the timestamp in Unix
// seconds, the key id, the salt, and the lower-case hex of the request
// binding's, the answer headers' and the body's SHA-256.
func ResponseSigningInput(f *SignedFacts, ts int64, keyID, salt string) []byte {
	return appendSigningInput(make([]byte, 0, 256+len(f.Method)+len(f.Target)+len(f.Nonce)), f, ts, keyID, salt)
}

// responseLeaf is LeafHash(ResponseSigningInput(…)), built on the stack
// unless the target or nonce is unusually long.
func responseLeaf(f *SignedFacts, ts int64, keyID, salt string) [32]byte {
	var buf [640]byte
	return sha256.Sum256(appendSigningInput(append(buf[:0], 0), f, ts, keyID, salt))
}

func appendSigningInput(b []byte, f *SignedFacts, ts int64, keyID, salt string) []byte {
	b = append(b, "app-access-response-"+ResponseSignatureVersion+"\n"...)
	b = append(b, f.Method...)
	b = append(b, '\n')
	b = append(b, f.Target...)
	b = append(b, '\n')
	b = strconv.AppendInt(b, int64(f.Status), 10)
	b = append(b, '\n')
	b = append(b, f.Nonce...)
	b = append(b, '\n')
	b = strconv.AppendInt(b, ts, 10)
	b = append(b, '\n')
	b = append(b, keyID...)
	b = append(b, '\n')
	b = append(b, salt...)
	b = append(b, '\n')
	b = hex.AppendEncode(b, f.Request[:])
	b = append(b, '\n')
	b = hex.AppendEncode(b, f.Headers[:])
	b = append(b, '\n')
	return hex.AppendEncode(b, f.Body)
}

// saltSize is the bytes of random salt in a signed leaf.
const saltSize = 16

// SignResponse returns the App-Access-Signature header value of a response.
func (sg *Signer) SignResponse(f *SignedFacts, at time.Time) string {
	ts := at.Unix()
	var raw [saltSize]byte
	var salt [22]byte        // unpadded base64url of 16 bytes
	_, _ = rand.Read(raw[:]) // never fails (crypto/rand)
	base64.RawURLEncoding.Encode(salt[:], raw[:])
	signed := sg.batch.sign(responseLeaf(f, ts, sg.KeyID, string(salt[:])))
	defer signed.release()
	var buf [600]byte
	b := append(buf[:0], ResponseSignatureVersion+"; kid="...)
	b = append(b, sg.KeyID...)
	b = append(b, "; ts="...)
	b = strconv.AppendInt(b, ts, 10)
	b = append(b, "; salt="...)
	b = append(b, salt[:]...)
	b = append(b, "; idx="...)
	b = strconv.AppendInt(b, int64(signed.index), 10)
	b = append(b, "; proof="...)
	b = base64.StdEncoding.AppendEncode(b, signed.proof())
	b = append(b, "; sig="...)
	b = base64.StdEncoding.AppendEncode(b, signed.sig[:])
	return string(b)
}

// ResponseSigner returns the signer of the application whose API key this
// is, or nil when there is no such application. The application is read
// from the cache the request's authentication filled, when it did.
func (s *Service) ResponseSigner(ctx context.Context, apiKey string) (*Signer, error) {
	if apiKey == "" || len(apiKey) > 256 {
		return nil, nil
	}
	app, err := s.appByKey(ctx, apiKey)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return s.SignerOf(ctx, app)
}

// SignerOf returns the signer of app, which the request authenticated
// already (ResponseSigner finds it by its API key).
func (s *Service) SignerOf(ctx context.Context, app *App) (*Signer, error) {
	r, err := s.keyRing(ctx, app.ID)
	if err != nil {
		return nil, err
	}
	return r.signer, nil
}
