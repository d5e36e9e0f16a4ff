package clientapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"hash"
	"io"
	"net/http"
	"strconv"
	"sync"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
)

// The headers of signed responses (docs/api.md, "Signed responses").
const (
	// HeaderNonce is the client's nonce on a request, echoed on its answer.
	HeaderNonce = "X-App-Access-Nonce"
	// HeaderSignature carries the answer's signature, key id and timestamp.
	HeaderSignature = "App-Access-Signature"
)

// signingWriter holds an answer back until the handler is done, then sends
// it with a signature over the request, the status and the body's SHA-256.
// A handler that streams a body whose digest it knows (a file) sends the
// signed headers first with sendSigned, and its body then passes through.
type signingWriter struct {
	http.ResponseWriter
	h      *Handler
	r      *http.Request
	app    *access.App // the application, once the request authenticated it
	status int
	body   bytes.Buffer
	sent   bool // the headers were sent by sendSigned
	// request hashes the request's body as the handler reads it (and the
	// rest when it is done); nil for a request without a body.
	request *hashingBody
}

// hashingBody passes a request body through, hashing what is read.
type hashingBody struct {
	io.ReadCloser
	hash hash.Hash
}

func (b *hashingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.hash.Write(p[:n])
	return n, err
}

var hashingBodies = sync.Pool{New: func() any { return &hashingBody{hash: sha256.New()} }}

// maxHashedBody bounds the request body read to sign an answer: a handler
// refuses more than MaxPasswordBodyBytes, and the rest of a larger body up
// to this bound is read after it so that the refusal is signed over the
// whole body. An answer to a body larger still is signed over this prefix,
// which the client's own hash does not match.
const maxHashedBody = 2*MaxPasswordBodyBytes + 1

// emptySHA256 is the SHA-256 of no bytes: the body hash of a request
// without one.
var emptySHA256 = sha256.Sum256(nil)

// requestBodySHA256 is the SHA-256 of the request's body: the bytes the
// handler read and the rest, read now (up to maxHashedBody in all).
func (w *signingWriter) requestBodySHA256() []byte {
	if w.request == nil {
		return emptySHA256[:]
	}
	_, _ = io.CopyN(io.Discard, w.request, maxHashedBody)
	return w.request.hash.Sum(nil)
}

var signingWriters = sync.Pool{New: func() any { return new(signingWriter) }}

// maxPooledBody is the largest buffer a signing writer keeps for reuse.
const maxPooledBody = 64 << 10

func (w *signingWriter) WriteHeader(status int) {
	if w.sent {
		return
	}
	if w.status == 0 {
		w.status = status
	}
}

func (w *signingWriter) Write(p []byte) (int, error) {
	if w.sent {
		return w.ResponseWriter.Write(p)
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *signingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sign sets the signature headers of an answer of status whose body has
// the SHA-256 sum, and Content-Length when contentLength is not negative
// (the header values share one allocation). Without a signer (the store
// could not be read) the answer goes out unsigned, which a verifying
// client refuses.
func (w *signingWriter) sign(status int, sum []byte, contentLength int) {
	hdr := w.ResponseWriter.Header()
	vals := make([]string, 3) // signature, nonce, length
	if contentLength >= 0 {
		vals[2] = strconv.Itoa(contentLength)
		hdr["Content-Length"] = vals[2:3:3]
	}
	signer, err := w.signer()
	if err != nil {
		w.h.logger.Warn("answer not signed: the signing key could not be read", zap.Error(err))
		return
	}
	if signer == nil { // the key names no application
		return
	}
	nonce := w.r.Header.Get(HeaderNonce)
	if !access.ValidNonce(nonce) {
		nonce = ""
	}
	f := access.SignedFacts{Method: w.r.Method, Target: requestTarget(w.r), Status: status, Nonce: nonce, Body: sum}
	f.Request = access.RequestBindingSHA256(func(name string) string { return first(w.r.Header[name]) }, w.requestBodySHA256())
	f.Headers = access.AnswerHeadersSHA256(func(name string) string { return first(hdr[name]) })
	vals[0] = signer.SignResponse(&f, w.h.svc().Now())
	hdr[HeaderSignature] = vals[0:1:1]
	if nonce != "" {
		vals[1] = nonce
		hdr[HeaderNonce] = vals[1:2:2]
	}
}

// first is a header's first value, "" when it has none.
func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// signer is the signer of the request's application: the one it
// authenticated, else the one its API key names (a refusal, an unknown
// route), or nil when the key names none.
func (w *signingWriter) signer() (*access.Signer, error) {
	if w.app != nil {
		return w.h.svc().SignerOf(w.r.Context(), w.app)
	}
	return w.h.svc().ResponseSigner(w.r.Context(), w.r.Header.Get(HeaderAPIKey))
}

// sendSigned signs an answer whose body the handler is about to stream and
// whose SHA-256 is sum, and sends its headers.
func (w *signingWriter) sendSigned(status int, sum []byte) {
	w.sign(status, sum, -1)
	w.sent = true
	w.ResponseWriter.WriteHeader(status)
}

// finish signs and sends a held-back answer.
func (w *signingWriter) finish() {
	if w.sent {
		return
	}
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	// The body sent: none for a HEAD, whose answer has GET's headers.
	sum := emptySHA256
	if w.r.Method != http.MethodHead {
		sum = sha256.Sum256(w.body.Bytes())
	}
	length := -1
	if w.ResponseWriter.Header().Get("Content-Length") == "" && status != http.StatusNotModified && status != http.StatusNoContent {
		length = w.body.Len()
	}
	w.sign(status, sum[:], length)
	w.ResponseWriter.WriteHeader(status)
	if w.body.Len() > 0 {
		_, _ = w.ResponseWriter.Write(w.body.Bytes())
	}
}

// serveSigned serves r with its answer signed by the application its
// x-api-key names.
func (h *Handler) serveSigned(w http.ResponseWriter, r *http.Request) {
	sw := signingWriters.Get().(*signingWriter)
	sw.ResponseWriter, sw.h, sw.r = w, h, r
	if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 { // -1: chunked
		sw.request = hashingBodies.Get().(*hashingBody)
		sw.request.ReadCloser = r.Body
		sw.request.hash.Reset()
		r.Body = sw.request
	}
	defer func() {
		if sw.request != nil {
			r.Body, sw.request.ReadCloser = sw.request.ReadCloser, nil
			hashingBodies.Put(sw.request)
		}
		body := sw.body
		*sw = signingWriter{body: body}
		if sw.body.Cap() > maxPooledBody {
			sw.body = bytes.Buffer{}
		}
		sw.body.Reset()
		signingWriters.Put(sw)
	}()
	h.router.ServeHTTP(sw, r)
	sw.finish()
}

// writeHeaderSigned sends the headers of an answer whose body will be
// streamed: signed with the body's SHA-256 (from digest, which is only
// called when the answer is signed) when w signs.
func writeHeaderSigned(w http.ResponseWriter, status int, digest func() ([]byte, error)) error {
	sw, ok := w.(*signingWriter)
	if !ok {
		w.WriteHeader(status)
		return nil
	}
	sum, err := digest()
	if err != nil {
		return err
	}
	sw.sendSigned(status, sum)
	return nil
}

type targetKey struct{}

// WithRequestTarget names the request target a client sent, when the
// server in front rewrote the request's (a path prefix removed): responses
// are signed over what the client sent.
func WithRequestTarget(ctx context.Context, target string) context.Context {
	return context.WithValue(ctx, targetKey{}, target)
}

// requestTarget is the path and query the client sent.
func requestTarget(r *http.Request) string {
	if t, ok := r.Context().Value(targetKey{}).(string); ok {
		return t
	}
	if r.RequestURI != "" {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}
