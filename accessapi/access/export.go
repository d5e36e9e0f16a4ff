package access

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"time"
)

// ExportFormat is the version of the export format this build writes and
// reads: JSON Lines, a header record first, an end record last. Format 1
// (before 2026-11-23) ended with a plain SHA-256, which whoever could edit
// the file could recompute; it is not read.
const ExportFormat = 2

// RecordType tags one line of an export.
type RecordType string

// Record types, in the order an export lists them and an import writes
// them: every record comes after those it refers to, a file's contents
// before its metadata, and the applications last, so that on a store
// without transactions no client reaches a half-imported application.
// Webhook endpoints come before their deliveries and those before their
// attempts; like signing keys, all three refer to an application and come
// before it.
const (
	RecordHeader      RecordType = "header"
	RecordAccount     RecordType = "account"
	RecordUser        RecordType = "user"
	RecordDeletedUser RecordType = "deleted_user"
	RecordBan         RecordType = "ban"
	RecordLastLogin   RecordType = "last_login"
	RecordActivation  RecordType = "activation"
	RecordDevice      RecordType = "device"
	RecordSession     RecordType = "session"
	RecordLicense     RecordType = "license"
	RecordLicenseUse  RecordType = "license_use"
	RecordVariable    RecordType = "variable"
	RecordFileChunk   RecordType = "file_chunk"
	RecordFile        RecordType = "file"
	RecordSigningKey  RecordType = "signing_key"
	// RecordWebhook is an endpoint, RecordWebhookDelivery one event for
	// one endpoint (the outbox and delivery log, pending ones included),
	// RecordWebhookAttempt one attempt at a delivery.
	RecordWebhook         RecordType = "webhook"
	RecordWebhookDelivery RecordType = "webhook_delivery"
	RecordWebhookAttempt  RecordType = "webhook_attempt"
	RecordApp             RecordType = "app"
	RecordEnd             RecordType = "end"
)

// ExportOrder lists the stored record types in export order (file chunks
// are emitted before each file, not listed by stores).
var ExportOrder = []RecordType{RecordAccount, RecordUser, RecordDeletedUser, RecordBan, RecordLastLogin, RecordActivation,
	RecordDevice, RecordSession, RecordLicense, RecordLicenseUse, RecordVariable, RecordFile, RecordSigningKey,
	RecordWebhook, RecordWebhookDelivery, RecordWebhookAttempt, RecordApp}

// Record is one line of an export: its type and the one field that type
// carries. Secrets and codes are as the store holds them: hashed, or
// sealed under the file key.
type Record struct {
	Type RecordType `json:"type"`

	Header      *ExportHeader `json:"header,omitempty"`
	App         *App          `json:"app,omitempty"`
	Account     *User         `json:"account,omitempty"`
	User        *User         `json:"user,omitempty"`
	DeletedUser string        `json:"deleted_user,omitempty"`
	Ban         *Ban          `json:"ban,omitempty"`
	LastLogin   *LastLogin    `json:"last_login,omitempty"`
	Activation  *Activation   `json:"activation,omitempty"`
	Device      *Device       `json:"device,omitempty"`
	Session     *Session      `json:"session,omitempty"`
	License     *License      `json:"license,omitempty"`
	LicenseUse  *ExportedUse  `json:"license_use,omitempty"`
	Variable    *Variable     `json:"variable,omitempty"`
	FileChunk   *FileChunk    `json:"file_chunk,omitempty"`
	File        *File         `json:"file,omitempty"`
	// SigningKey carries the seed sealed as the store holds it: it opens
	// only under the same file key.
	SigningKey *SigningKey `json:"signing_key,omitempty"`
	// Webhook carries the endpoint's secrets sealed as the store holds
	// them, the current one and, during a rotation's overlap, the previous
	// one with its end: like signing keys' seeds they open only under the
	// same file key.
	Webhook *Webhook `json:"webhook,omitempty"`
	// WebhookDelivery carries a delivery's state as it is: a pending one
	// keeps its attempts and next attempt's time, so the importing store's
	// dispatchers go on with the next attempt number.
	WebhookDelivery *WebhookDelivery `json:"webhook_delivery,omitempty"`
	WebhookAttempt  *DeliveryAttempt `json:"webhook_attempt,omitempty"`
	End             *ExportEnd       `json:"end,omitempty"`
}

// ExportHeader is an export's first line.
type ExportHeader struct {
	Format     int       `json:"format"`
	ExportedAt time.Time `json:"exported_at"`
}

// ExportEnd is an export's last line: the number of records before it
// and the HMAC-SHA256 of every line before it under a key derived from the
// file key (exportKey), so that a truncated or altered file is refused,
// also one whose editor recomputed the end: only a holder of the file key
// (which the sealed secrets need anyway) can make one.
type ExportEnd struct {
	Records int64  `json:"records"`
	HMAC    string `json:"hmac_sha256"`
}

// exportKey is the key of an export's end HMAC.
func exportKey(fileKey []byte) []byte {
	return deriveKey(fileKey, "app-access export v2")
}

// ExportedUse is a license claim with the grant it carried.
type ExportedUse struct {
	LicenseUse
	Grant Grant
}

// FileChunk is a piece of a file's stored contents; N counts from 0.
type FileChunk struct {
	FileID string `json:"file_id"`
	N      int    `json:"n"`
	Data   []byte `json:"data"`
}

// exportChunkSize is the bytes of file contents in one chunk record.
const exportChunkSize = 64 << 10

// ErrNotEmpty refuses an import into a store that holds records.
var ErrNotEmpty = errors.New("the store is not empty")

// ErrInvalidRecord is an imported record the store refuses: one that
// refers to a record the file does not hold, or breaks another rule of
// the store.
var ErrInvalidRecord = errors.New("the store refuses the record")

// ErrNoExport answers an export or import on a store that cannot.
var ErrNoExport = errors.New("this store cannot export or import")

// Exporter is a store that lists all its records for an export.
type Exporter interface {
	// Export calls emit with every record the store holds, type by type
	// in ExportOrder, reading a page at a time; file records carry the
	// metadata only. A store with transactions reads one snapshot.
	Export(ctx context.Context, emit func(*Record) error) error
}

// Importer is a store that takes an export.
type Importer interface {
	// Import writes the records next returns until io.EOF into the
	// store, which must be empty (ErrNotEmpty otherwise, before next is
	// called). When next or a write fails, nothing written stays visible;
	// until it returns, DueDeliveries finds none of the imported
	// deliveries (a dispatcher must not send what may yet be removed).
	Import(ctx context.Context, next func() (*Record, error)) error
}

// ExportStats counts what an export or import carried, by record type.
type ExportStats map[RecordType]int64

// Export writes every record of the store to w as JSON Lines. progress,
// when not nil, is called with the records written so far every 10,000.
func (s *Service) Export(ctx context.Context, w io.Writer, progress func(n int64)) (ExportStats, error) {
	ex, ok := optionalStore[Exporter](s.store)
	if !ok {
		return nil, ErrNoExport
	}
	complete := false
	e := &exportWriter{w: bufio.NewWriterSize(w, 64<<10), sum: hmac.New(sha256.New, exportKey(s.fileKey)), stats: ExportStats{}, progress: progress}
	if err := e.write(&Record{Type: RecordHeader, Header: &ExportHeader{Format: ExportFormat, ExportedAt: s.now().UTC()}}); err != nil {
		return nil, err
	}
	// Whatever was written is out: an export that fails on the way is
	// recorded too.
	defer func() {
		after := statsOf(e.stats)
		after["complete"] = complete
		s.emit(ctx, Event{Kind: EventStoreExported, After: after})
	}()
	err := ex.Export(ctx, func(r *Record) error {
		if r.Type == RecordFile {
			if found, err := e.fileContents(ctx, s.store, r.File.ID); err != nil || !found {
				return err // a file deleted during the export is left out
			}
		}
		return e.write(r)
	})
	if err != nil {
		return nil, fmt.Errorf("exporting: %w", err)
	}
	end := &ExportEnd{Records: e.n, HMAC: hex.EncodeToString(e.sum.Sum(nil))}
	if err := e.write(&Record{Type: RecordEnd, End: end}); err != nil {
		return nil, err
	}
	if err := e.w.Flush(); err != nil {
		return nil, fmt.Errorf("writing the export: %w", err)
	}
	complete = true
	return e.stats, nil
}

// exportWriter writes records as lines and keeps the running checksum.
type exportWriter struct {
	w        *bufio.Writer
	sum      hash.Hash
	n        int64
	stats    ExportStats
	progress func(int64)
}

func (e *exportWriter) write(r *Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encoding a %s record: %w", r.Type, err)
	}
	line = append(line, '\n')
	if _, err := e.w.Write(line); err != nil {
		return fmt.Errorf("writing the export: %w", err)
	}
	e.sum.Write(line)
	e.n++
	e.stats[r.Type]++
	if e.progress != nil && e.n%10000 == 0 {
		e.progress(e.n)
	}
	return nil
}

// fileContents writes a file's contents as chunk records; found is false
// when the file is gone.
func (e *exportWriter) fileContents(ctx context.Context, store Store, fileID string) (found bool, err error) {
	rc, err := store.OpenFile(ctx, fileID, 0)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading file %s: %w", fileID, err)
	}
	defer rc.Close()
	buf := make([]byte, exportChunkSize)
	for n := 0; ; n++ {
		k, err := io.ReadFull(rc, buf)
		if k > 0 {
			if werr := e.write(&Record{Type: RecordFileChunk, FileChunk: &FileChunk{FileID: fileID, N: n, Data: buf[:k]}}); werr != nil {
				return false, werr
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("reading file %s: %w", fileID, err)
		}
	}
}
