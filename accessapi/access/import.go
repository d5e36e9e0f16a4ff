package access

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
)

// ImportError is an import that stopped at a line of the file.
type ImportError struct {
	Line int
	Err  error
	// Write is set when the store refused to write the line's record
	// (rather than the line being malformed).
	Write bool
}

// ImportRefusal turns an import's error into the refusal a client is
// shown: 409 for a store that is not empty, 422 naming the line for a
// bad file. Other errors are returned as they are.
func ImportRefusal(err error) error {
	var ie *ImportError
	switch {
	case errors.Is(err, ErrNotEmpty):
		return Refusal(CodeConflict, "The store is not empty: import only into a new, empty store. Nothing was imported.")
	case errors.Is(err, ErrNoExport):
		return Refusal(CodeUnavailable, "This store cannot export or import.")
	case errors.As(err, &ie) && ie.Write && errors.Is(ie.Err, ErrDuplicate):
		return &Error{Code: CodeValidationFailed, Detail: fmt.Sprintf("line %d: a record that is in the file twice. Nothing was imported.", ie.Line)}
	case errors.As(err, &ie) && ie.Write && errors.Is(ie.Err, ErrInvalidRecord):
		return &Error{Code: CodeValidationFailed, Detail: fmt.Sprintf("line %d: a record that refers to one the file does not hold. Nothing was imported.", ie.Line)}
	case errors.As(err, &ie) && ie.Write:
		return err // a store failure: logged, shown as an internal error
	case errors.As(err, &ie):
		return &Error{Code: CodeValidationFailed, Detail: fmt.Sprintf("line %d: %v. Nothing was imported.", ie.Line, ie.Err)}
	}
	return err
}

func (e *ImportError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *ImportError) Unwrap() error { return e.Err }

// Import reads an export from r into the store, which must be empty. It
// stops at the first bad line with an *ImportError naming it, and then
// nothing it wrote stays visible.
func (s *Service) Import(ctx context.Context, r io.Reader) (ExportStats, error) {
	im, ok := optionalStore[Importer](s.store)
	if !ok {
		return nil, ErrNoExport
	}
	d := newImportReader(r, s.fileKey)
	if err := d.readHeader(); err != nil {
		return nil, err
	}
	err := im.Import(ctx, d.next)
	var ie *ImportError
	switch {
	case err == nil:
	case errors.Is(err, ErrNotEmpty), errors.As(err, &ie):
		return nil, err
	default:
		return nil, &ImportError{Line: d.line, Err: err, Write: true}
	}
	s.forgetAll()
	s.emit(ctx, Event{Kind: EventStoreImported, After: statsOf(d.stats)})
	return d.stats, nil
}

// forgetAll empties the caches after the store changed under them.
func (s *Service) forgetAll() {
	s.apps.removeIf(func(*App) bool { return true })
	s.users.removeIf(func(*userState) bool { return true })
	s.sessions.removeIf(func(*Session) bool { return true })
	s.creds.removeIf(func(credential) bool { return true })
	s.uses.removeIf(func(*LicenseUse) bool { return true })
	s.devices.removeIf(func(string) bool { return true })
	s.content.removeIf(func(*AppContent) bool { return true })
	s.signingKeys.removeIf(func(*keyRing) bool { return true })
}

// maxImportLine bounds one line of an import (a file chunk is 64 KiB,
// about 88 KiB in base64).
const maxImportLine = 1 << 20

// importReader reads and checks an export a line at a time.
type importReader struct {
	sc    *bufio.Scanner
	line  int
	sum   hash.Hash
	n     int64
	stats ExportStats
	done  bool

	pos  int // index in ExportOrder of the last record's type
	file fileCheck
}

// fileCheck follows the chunks of the file being read.
type fileCheck struct {
	id   string
	next int
	size int64
	sum  hash.Hash
}

func newImportReader(r io.Reader, fileKey []byte) *importReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 128<<10), maxImportLine)
	return &importReader{sc: sc, sum: hmac.New(sha256.New, exportKey(fileKey)), stats: ExportStats{}}
}

// readLine reads and decodes the next line; io.ErrUnexpectedEOF means the
// file ended.
func (d *importReader) readLine() (*Record, error) {
	if !d.sc.Scan() {
		if err := d.sc.Err(); err != nil {
			return nil, &ImportError{Line: d.line + 1, Err: fmt.Errorf("reading: %w", err)}
		}
		return nil, &ImportError{Line: d.line + 1, Err: errors.New("the file ends before its end record (truncated?)")}
	}
	d.line++
	raw := d.sc.Bytes()
	var r Record
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, &ImportError{Line: d.line, Err: fmt.Errorf("not a record: %w", err)}
	}
	if r.Type != RecordEnd {
		d.sum.Write(raw)
		d.sum.Write([]byte{'\n'})
		d.n++
		d.stats[r.Type]++
	}
	return &r, nil
}

func (d *importReader) readHeader() error {
	r, err := d.readLine()
	if err != nil {
		return err
	}
	if r.Type != RecordHeader || r.Header == nil {
		return &ImportError{Line: d.line, Err: errors.New("not an App Access export (no header)")}
	}
	if r.Header.Format != ExportFormat {
		return &ImportError{Line: d.line, Err: fmt.Errorf("export format %d, this build reads %d", r.Header.Format, ExportFormat)}
	}
	delete(d.stats, RecordHeader)
	return nil
}

// next returns the next record to write, or io.EOF after a valid end.
func (d *importReader) next() (*Record, error) {
	if d.done {
		return nil, io.EOF
	}
	r, err := d.readLine()
	if err != nil {
		return nil, err
	}
	if err := d.check(r); err != nil {
		return nil, &ImportError{Line: d.line, Err: err}
	}
	if r.Type == RecordEnd {
		if d.sc.Scan() {
			return nil, &ImportError{Line: d.line + 1, Err: errors.New("a line after the end record")}
		}
		d.done = true
		return nil, io.EOF
	}
	return r, nil
}

// check validates one record against the format and what came before.
func (d *importReader) check(r *Record) error {
	if d.file.id != "" && r.Type != RecordFileChunk && (r.Type != RecordFile || r.File == nil || r.File.ID != d.file.id) {
		return fmt.Errorf("the chunks of file %s are not followed by its metadata", d.file.id)
	}
	var ok bool
	switch r.Type {
	case RecordEnd:
		if r.End == nil {
			return errors.New("an end record without its fields")
		}
		if r.End.Records != d.n || !hmac.Equal([]byte(r.End.HMAC), []byte(hex.EncodeToString(d.sum.Sum(nil)))) {
			return errors.New("the checksum or record count does not match: the file was altered, is incomplete, or was exported under another file key")
		}
		return nil
	case RecordFileChunk:
		c := r.FileChunk
		if c == nil || c.FileID == "" {
			return errors.New("a file_chunk record without its fields")
		}
		if d.file.id == "" && c.N == 0 {
			d.file = fileCheck{id: c.FileID, sum: sha256.New()}
		}
		if c.FileID != d.file.id || c.N != d.file.next {
			return fmt.Errorf("chunk %d of file %s out of order", c.N, c.FileID)
		}
		d.file.next++
		d.file.size += int64(len(c.Data))
		d.file.sum.Write(c.Data)
		return d.order(RecordFile)
	case RecordFile:
		f := r.File
		if f == nil || f.ID == "" || f.AppID == "" {
			return errors.New("a file record without its fields")
		}
		size, sum := int64(0), sha256.Sum256(nil)
		digest := hex.EncodeToString(sum[:])
		if d.file.id == f.ID {
			size, digest = d.file.size, hex.EncodeToString(d.file.sum.Sum(nil))
		}
		d.file = fileCheck{}
		// Size and SHA-256 are of the plaintext: an encrypted file's
		// stored bytes are covered by the end record's checksum only.
		if !f.IsEncrypted && (size != f.Size || f.SHA256 != digest) {
			return fmt.Errorf("the contents of file %s do not match its size and SHA-256", f.ID)
		}
		return d.order(RecordFile)
	case RecordApp:
		ok = r.App != nil && r.App.ID != "" && r.App.APIKey != ""
	case RecordAccount:
		ok = r.Account != nil && r.Account.ID != "" && r.Account.AppID != "" && r.Account.Username != ""
	case RecordUser:
		ok = r.User != nil && r.User.ID != "" && r.User.AppID != "" && r.User.Username != ""
	case RecordDeletedUser:
		ok = r.DeletedUser != ""
	case RecordBan:
		ok = r.Ban != nil && r.Ban.UserID != ""
	case RecordLastLogin:
		ok = r.LastLogin != nil && r.LastLogin.UserID != ""
	case RecordActivation:
		ok = r.Activation != nil && r.Activation.ID != "" && r.Activation.UserID != "" && r.Activation.AppID != ""
	case RecordDevice:
		ok = r.Device != nil && r.Device.UserID != "" && r.Device.AppID != ""
	case RecordSession:
		ok = r.Session != nil && r.Session.TokenHash != "" && r.Session.UserID != ""
	case RecordLicense:
		ok = r.License != nil && r.License.ID != "" && r.License.AppID != ""
	case RecordLicenseUse:
		ok = r.LicenseUse != nil && r.LicenseUse.LicenseID != "" && r.LicenseUse.UserID != ""
	case RecordVariable:
		ok = r.Variable != nil && r.Variable.AppID != "" && r.Variable.Name != ""
	case RecordSigningKey:
		k := r.SigningKey
		ok = k != nil && k.ID != "" && k.AppID != "" && k.Generation > 0 && len(k.PublicKey) == 32 && len(k.SealedSeed) > 0
	case RecordWebhook:
		w := r.Webhook
		ok = w != nil && w.ID != "" && w.AppID != "" && w.URL != "" && len(w.SealedSecret) > 0
	case RecordWebhookDelivery:
		dl := r.WebhookDelivery
		ok = dl != nil && dl.ID != "" && dl.WebhookID != "" && dl.AppID != "" && dl.Attempts >= 0 &&
			slices.Contains([]DeliveryStatus{DeliveryPending, DeliveryDelivered, DeliveryFailed}, dl.Status)
	case RecordWebhookAttempt:
		a := r.WebhookAttempt
		ok = a != nil && a.DeliveryID != "" && a.Number > 0
	default:
		return fmt.Errorf("unknown record type %q", r.Type)
	}
	if !ok {
		return fmt.Errorf("a %s record without its fields", r.Type)
	}
	return d.order(r.Type)
}

// order refuses a record type that comes before the last one's in
// ExportOrder (records refer only to earlier types).
func (d *importReader) order(t RecordType) error {
	for i := d.pos; i < len(ExportOrder); i++ {
		if ExportOrder[i] == t {
			d.pos = i
			return nil
		}
	}
	return fmt.Errorf("a %s record after the %s records", t, ExportOrder[d.pos])
}
