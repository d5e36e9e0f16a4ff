package access

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// RecordWriter writes imported records through a Store's ordinary
// methods, for a store that has no import of its own (MongoDB). Licenses
// and webhook deliveries are inserted in batches; a file's chunks stream
// into PutFileContents. Call Close after the last record.
type RecordWriter struct {
	store      Store
	licenses   importBatch[License]
	deliveries importBatch[WebhookDelivery]
	file       *pipedFile
}

// pipedFile is a file whose contents are being stored.
type pipedFile struct {
	id   string
	w    *io.PipeWriter
	done chan error
}

// importBatchSize is the records one batched store call writes on import.
const importBatchSize = 1000

// importBatch holds records of one type until one store call writes them.
type importBatch[T any] struct {
	items []T
	write func(context.Context, []T) error
}

// add holds v, writing the batch when it is full.
func (b *importBatch[T]) add(ctx context.Context, v T) error {
	b.items = append(b.items, v)
	if len(b.items) >= importBatchSize {
		return b.flush(ctx)
	}
	return nil
}

// flush writes what is held.
func (b *importBatch[T]) flush(ctx context.Context) error {
	if len(b.items) == 0 {
		return nil
	}
	err := b.write(ctx, b.items)
	b.items = b.items[:0]
	return err
}

// NewRecordWriter returns a RecordWriter over store.
func NewRecordWriter(store Store) *RecordWriter {
	return &RecordWriter{store: store, licenses: importBatch[License]{write: store.InsertLicenses},
		deliveries: importBatch[WebhookDelivery]{write: store.InsertDeliveries}}
}

// Write stores one record.
func (w *RecordWriter) Write(ctx context.Context, r *Record) error {
	// Records come type by type: a batch of another type is complete.
	if r.Type != RecordLicense {
		if err := w.licenses.flush(ctx); err != nil {
			return err
		}
	}
	if r.Type != RecordWebhookDelivery {
		if err := w.deliveries.flush(ctx); err != nil {
			return err
		}
	}
	s := w.store
	switch r.Type {
	case RecordAccount:
		return s.InsertAccount(ctx, r.Account)
	case RecordUser:
		return s.InsertUser(ctx, r.User)
	case RecordDeletedUser:
		return s.MarkUserDeleted(ctx, r.DeletedUser)
	case RecordBan:
		return s.InsertBan(ctx, r.Ban)
	case RecordLastLogin:
		return s.RecordLogin(ctx, r.LastLogin)
	case RecordActivation:
		return s.AppendActivation(ctx, r.Activation)
	case RecordDevice:
		return s.InsertDevice(ctx, r.Device)
	case RecordSession:
		return s.InsertSession(ctx, r.Session)
	case RecordLicense:
		return w.licenses.add(ctx, *r.License)
	case RecordLicenseUse:
		if err := s.InsertLicenseUse(ctx, &r.LicenseUse.LicenseUse, r.LicenseUse.Grant); err != nil {
			return err
		}
		return s.MarkLicenseUsed(ctx, r.LicenseUse.LicenseID)
	case RecordVariable:
		return s.PutVariable(ctx, r.Variable)
	case RecordFileChunk:
		if w.file == nil {
			w.startFile(ctx, r.FileChunk.FileID)
		}
		if _, err := w.file.w.Write(r.FileChunk.Data); err != nil {
			return fmt.Errorf("storing file %s: %w", r.FileChunk.FileID, err)
		}
		return nil
	case RecordFile:
		if w.file == nil {
			w.startFile(ctx, r.File.ID) // an empty file has no chunks
		}
		if err := w.endFile(); err != nil {
			return err
		}
		return s.InsertFile(ctx, r.File)
	case RecordSigningKey:
		return s.InsertSigningKey(ctx, r.SigningKey)
	case RecordWebhook:
		return s.InsertWebhook(ctx, r.Webhook)
	case RecordWebhookDelivery:
		return w.deliveries.add(ctx, *r.WebhookDelivery)
	case RecordWebhookAttempt:
		return s.InsertDeliveryAttempt(ctx, r.WebhookAttempt)
	case RecordApp:
		return s.InsertApp(ctx, r.App)
	}
	return fmt.Errorf("cannot import a %s record", r.Type)
}

// Close writes what is still batched and ends a file left open.
func (w *RecordWriter) Close(ctx context.Context) error {
	if w.file != nil {
		w.file.w.CloseWithError(io.ErrUnexpectedEOF)
		<-w.file.done
		w.file = nil
	}
	return errors.Join(w.licenses.flush(ctx), w.deliveries.flush(ctx))
}

func (w *RecordWriter) startFile(ctx context.Context, id string) {
	pr, pw := io.Pipe()
	f := &pipedFile{id: id, w: pw, done: make(chan error, 1)}
	go func() {
		err := w.store.PutFileContents(ctx, id, pr)
		pr.CloseWithError(err) // unblocks a writer if the store stopped reading early
		f.done <- err
	}()
	w.file = f
}

func (w *RecordWriter) endFile() error {
	f := w.file
	w.file = nil
	_ = f.w.Close()
	if err := <-f.done; err != nil {
		return fmt.Errorf("storing file %s: %w", f.id, err)
	}
	return nil
}
