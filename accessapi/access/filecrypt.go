package access

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// Encrypted files are stored as a 12-byte random nonce followed by the
// plain text in chunks of fileChunkSize bytes, each sealed with AES-256-GCM
// under a nonce derived from the file nonce and the chunk index. The chunk
// index, the file ID and whether it is the last chunk are authenticated, so
// chunks cannot be reordered, swapped between files or cut off. A range of
// the file is read by opening only the chunks it covers.
const (
	fileChunkSize = 64 << 10
	fileNonceSize = 12
	sealedChunk   = fileChunkSize + 16
)

// FileKeySize is the size of the key that encrypts files.
const FileKeySize = 32

func fileAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != FileKeySize {
		return nil, errors.New("file encryption key must be 32 bytes")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// deriveKey derives the 32-byte key of one purpose, named by info, from
// the file key (HKDF-SHA256), so that no two purposes share a key. Without
// a file key (tests) it is all zeros: as weak as keeping the secrets plain.
func deriveKey(fileKey []byte, info string) []byte {
	if fileKey == nil {
		return make([]byte, FileKeySize)
	}
	key, err := hkdf.Key(sha256.New, fileKey, nil, info, FileKeySize)
	if err != nil {
		panic(fmt.Sprintf("deriving the %q key: %v", info, err)) // only for lengths HKDF cannot give
	}
	return key
}

// sealSecret encrypts a small secret under a 32-byte key with AES-256-GCM:
// a random 12-byte nonce, then the sealed bytes, with aad authenticated
// (what the secret belongs to, so it cannot be moved elsewhere).
func sealSecret(key, plain, aad []byte) ([]byte, error) {
	aead, err := fileAEAD(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(nonce, nonce, plain, aad), nil
}

// openSecret returns what sealSecret sealed with the same key and aad.
func openSecret(key, sealed, aad []byte) ([]byte, error) {
	aead, err := fileAEAD(key)
	if err != nil {
		return nil, err
	}
	n := aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("the sealed secret is too short")
	}
	return aead.Open(nil, sealed[:n], sealed[n:], aad)
}

func chunkNonce(base []byte, index uint64) []byte {
	n := make([]byte, fileNonceSize)
	copy(n, base)
	x := binary.BigEndian.Uint64(n[4:]) ^ index
	binary.BigEndian.PutUint64(n[4:], x)
	return n
}

func chunkAAD(fileID string, index uint64, last bool) []byte {
	aad := make([]byte, 0, len(fileID)+9)
	aad = append(aad, fileID...)
	aad = binary.BigEndian.AppendUint64(aad, index)
	if last {
		return append(aad, 1)
	}
	return append(aad, 0)
}

// encryptingReader encrypts plain text read from src.
type encryptingReader struct {
	aead   cipher.AEAD
	fileID string
	src    io.Reader
	nonce  []byte
	index  uint64
	out    []byte
	plain  []byte
	done   bool
	header bool
}

func newEncryptingReader(key []byte, fileID string, src io.Reader) (io.Reader, error) {
	aead, err := fileAEAD(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, fileNonceSize)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return &encryptingReader{aead: aead, fileID: fileID, src: src, nonce: nonce, plain: make([]byte, fileChunkSize+1)}, nil
}

func (e *encryptingReader) Read(p []byte) (int, error) {
	for len(e.out) == 0 {
		if !e.header {
			e.header = true
			e.out = append([]byte(nil), e.nonce...)
			break
		}
		if e.done {
			return 0, io.EOF
		}
		if err := e.sealNext(); err != nil {
			return 0, err
		}
	}
	n := copy(p, e.out)
	e.out = e.out[n:]
	return n, nil
}

// sealNext seals the next chunk. It reads one byte past the chunk to learn
// whether the chunk is the last.
func (e *encryptingReader) sealNext() error {
	// e.plain[0:1] may hold the byte read ahead for the previous chunk.
	have := 0
	if e.index > 0 {
		have = 1
	}
	n, err := io.ReadFull(e.src, e.plain[have:])
	n += have
	last := false
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		last = true
	case err != nil:
		return err
	}
	chunk := e.plain[:min(n, fileChunkSize)]
	if n <= fileChunkSize {
		last = true
	}
	e.out = e.aead.Seal(nil, chunkNonce(e.nonce, e.index), chunk, chunkAAD(e.fileID, e.index, last))
	if !last {
		e.plain[0] = e.plain[fileChunkSize]
	}
	e.index++
	e.done = last
	return nil
}

// decryptingReader returns the plain text of an encrypted file from a given
// plain-text offset; src must be positioned at that offset's chunk.
type decryptingReader struct {
	aead      cipher.AEAD
	fileID    string
	src       io.Reader
	nonce     []byte
	index     uint64
	lastIndex uint64
	skip      int
	out       []byte
	sealed    []byte
	src0      io.Closer
}

// encryptedOffset returns where, in the stored form of a file, the chunk
// that holds plain-text offset starts, and how far into it the offset is.
func encryptedOffset(offset int64) (stored int64, index uint64, skip int) {
	index = uint64(offset / fileChunkSize)
	return fileNonceSize + int64(index)*sealedChunk, index, int(offset % fileChunkSize)
}

func (d *decryptingReader) Read(p []byte) (int, error) {
	for len(d.out) == 0 {
		if d.index > d.lastIndex {
			return 0, io.EOF
		}
		n, err := io.ReadFull(d.src, d.sealed)
		if err != nil && err != io.ErrUnexpectedEOF {
			return 0, fmt.Errorf("reading encrypted chunk %d: %w", d.index, err)
		}
		last := d.index == d.lastIndex
		plain, err := d.aead.Open(d.sealed[:0], chunkNonce(d.nonce, d.index), d.sealed[:n], chunkAAD(d.fileID, d.index, last))
		if err != nil {
			return 0, fmt.Errorf("decrypting chunk %d: %w", d.index, err)
		}
		d.index++
		d.out = plain[min(d.skip, len(plain)):]
		d.skip = 0
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

func (d *decryptingReader) Close() error { return d.src0.Close() }

// lastChunkIndex is the index of the last chunk of a file of size bytes.
func lastChunkIndex(size int64) uint64 {
	if size == 0 {
		return 0
	}
	return uint64((size - 1) / fileChunkSize)
}

// FileKeyID names a file key without revealing it: the first 8 bytes, in
// hex, of an HMAC-SHA256 under the key. It is stored with each encrypted
// file and may be logged.
func FileKeyID(key []byte) string {
	if key == nil {
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("app-access file key id"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}
