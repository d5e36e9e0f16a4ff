package access

import (
	"context"
	"crypto/ed25519"
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
//	App-Access-Signature: v1; kid=<key id>; ts=<unix seconds>; idx=<leaf>; proof=<base64>; sig=<base64>
//
// over the root of a Merkle tree whose leaf is ResponseSigningInput's
// bytes (batchsign.go): one leaf, and so no proof, unless answers wait.

// ResponseSignatureVersion is the version tag of the signature header and
// of the signed bytes.
const ResponseSignatureVersion = "v1"

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

// ResponseSigningInput is the byte string a response signature covers:
// eight lines joined by "\n" (no trailing newline): the version tag
// "app-access-response-v1", the request method, the request target (path
// and query as sent), the status code, the nonce (empty when none), the
// timestamp in Unix seconds, the key id, and the lower-case hex SHA-256 of
// the body bytes sent.
func ResponseSigningInput(method, target string, status int, nonce string, ts int64, keyID string, bodySHA256 []byte) []byte {
	return appendSigningInput(make([]byte, 0, 64+len(method)+len(target)+len(nonce)+len(keyID)+2*len(bodySHA256)),
		method, target, status, nonce, ts, keyID, bodySHA256)
}

// responseLeaf is LeafHash(ResponseSigningInput(…)), built on the stack
// unless the target or nonce is unusually long.
func responseLeaf(method, target string, status int, nonce string, ts int64, keyID string, bodySHA256 []byte) [32]byte {
	var buf [512]byte
	return sha256.Sum256(appendSigningInput(append(buf[:0], 0), method, target, status, nonce, ts, keyID, bodySHA256))
}

func appendSigningInput(b []byte, method, target string, status int, nonce string, ts int64, keyID string, bodySHA256 []byte) []byte {
	b = append(b, "app-access-response-"+ResponseSignatureVersion+"\n"...)
	b = append(b, method...)
	b = append(b, '\n')
	b = append(b, target...)
	b = append(b, '\n')
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, '\n')
	b = append(b, nonce...)
	b = append(b, '\n')
	b = strconv.AppendInt(b, ts, 10)
	b = append(b, '\n')
	b = append(b, keyID...)
	b = append(b, '\n')
	return hex.AppendEncode(b, bodySHA256)
}

// SignResponse returns the App-Access-Signature header value of a response.
func (sg *Signer) SignResponse(method, target string, status int, nonce string, at time.Time, bodySHA256 []byte) string {
	ts := at.Unix()
	signed := sg.batch.sign(responseLeaf(method, target, status, nonce, ts, sg.KeyID, bodySHA256))
	defer signed.release()
	var buf [512]byte
	b := append(buf[:0], ResponseSignatureVersion+"; kid="...)
	b = append(b, sg.KeyID...)
	b = append(b, "; ts="...)
	b = strconv.AppendInt(b, ts, 10)
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
