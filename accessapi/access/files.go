package access

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// FileUpload describes a file to store for an application.
type FileUpload struct {
	Name      string
	MimeType  string
	Encrypted bool
}

// UploadFile stores a file's contents from r, encrypting them first when
// asked to. The contents are streamed, never held whole in memory.
func (s *Service) UploadFile(ctx context.Context, appID string, up FileUpload, r io.Reader) (*File, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	var fields []FieldError
	if up.Name == "" || len(up.Name) > 255 || !utf8.ValidString(up.Name) || strings.ContainsAny(up.Name, "/\\\x00") {
		fields = append(fields, FieldError{"name", "must be 1 to 255 bytes, without slashes"})
	}
	if up.MimeType == "" {
		up.MimeType = "application/octet-stream"
	}
	if _, _, err := mime.ParseMediaType(up.MimeType); err != nil {
		fields = append(fields, FieldError{"mime_type", "must be a media type"})
	}
	if len(fields) > 0 {
		return nil, Invalid(fields...)
	}
	f := &File{ID: uuid.NewString(), AppID: appID, Name: up.Name, MimeType: up.MimeType, IsEncrypted: up.Encrypted, CreatedAt: s.Now()}
	if up.Encrypted {
		f.KeyID = FileKeyID(s.fileKey)
	}
	digest := sha256.New()
	counted := &countingReader{r: io.TeeReader(r, digest)}
	var stored io.Reader = counted
	if up.Encrypted {
		if s.fileKey == nil {
			return nil, Refusal(CodeUnavailable, "No file encryption key is configured.")
		}
		var err error
		if stored, err = newEncryptingReader(s.fileKey, f.ID, counted); err != nil {
			return nil, err
		}
	}
	if err := s.store.PutFileContents(ctx, f.ID, stored); err != nil {
		return nil, wrapStore(err, "storing file contents")
	}
	f.Size = counted.n
	f.SHA256 = hex.EncodeToString(digest.Sum(nil))
	// The change is the metadata, which makes the stored contents visible.
	err := s.commit(ctx, func(ctx context.Context) error {
		if err := s.store.InsertFile(ctx, f); err != nil {
			// The contents are invisible without the metadata; remove them.
			_ = s.store.DeleteFile(context.WithoutCancel(ctx), f.ID)
			return wrapStore(err, "storing file")
		}
		return nil
	}, Event{Kind: EventContentChanged, AppID: appID, Target: f.ID, Change: ContentFileUploaded, After: fileOf(f)})
	if err != nil {
		return nil, err
	}
	return f, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// FileOf returns an application's file.
func (s *Service) FileOf(ctx context.Context, appID, fileID string) (*File, error) {
	if _, err := uuid.Parse(fileID); err != nil {
		return nil, notFound("file")
	}
	f, err := s.store.FileByID(ctx, fileID)
	if errors.Is(err, ErrNotFound) || (err == nil && f.AppID != appID) {
		return nil, notFound("file")
	}
	return f, wrapStore(err, "reading file")
}

// OpenFile returns a file's plain text from offset on, decrypting it if it
// is stored encrypted.
func (s *Service) OpenFile(ctx context.Context, f *File, offset int64) (io.ReadCloser, error) {
	if !f.IsEncrypted {
		rc, err := s.store.OpenFile(ctx, f.ID, offset)
		return rc, wrapStore(err, "opening file")
	}
	aead, err := fileAEAD(s.fileKey)
	if err != nil {
		return nil, fmt.Errorf("file %s is encrypted: %w", f.ID, err)
	}
	if have := FileKeyID(s.fileKey); f.KeyID != "" && f.KeyID != have {
		return nil, fmt.Errorf("file %s was encrypted with file key %s, but the configured file key is %s", f.ID, f.KeyID, have)
	}
	head, err := s.store.OpenFile(ctx, f.ID, 0)
	if err != nil {
		return nil, wrapStore(err, "opening file")
	}
	nonce := make([]byte, fileNonceSize)
	_, err = io.ReadFull(head, nonce)
	_ = head.Close()
	if err != nil {
		return nil, fmt.Errorf("reading file nonce: %w", err)
	}
	storedAt, index, skip := encryptedOffset(offset)
	src, err := s.store.OpenFile(ctx, f.ID, storedAt)
	if err != nil {
		return nil, wrapStore(err, "opening file")
	}
	return &decryptingReader{aead: aead, fileID: f.ID, src: src, src0: src, nonce: nonce, index: index,
		lastIndex: lastChunkIndex(f.Size), skip: skip, sealed: make([]byte, sealedChunk)}, nil
}

// Files lists an application's files.
func (s *Service) Files(ctx context.Context, appID string) ([]File, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	fs, err := s.store.Files(ctx, appID)
	return fs, wrapStore(err, "listing files")
}

// DeleteFile removes an application's file.
func (s *Service) DeleteFile(ctx context.Context, appID, fileID string) error {
	f, err := s.FileOf(ctx, appID, fileID)
	if err != nil {
		return err
	}
	return s.commit(ctx, func(ctx context.Context) error { return wrapStore(s.store.DeleteFile(ctx, fileID), "deleting file") },
		Event{Kind: EventContentChanged, AppID: appID, Target: f.ID, Change: ContentFileDeleted, Before: fileOf(f)})
}
