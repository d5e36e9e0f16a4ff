package access

import (
	"bufio"
	"bytes"
	"context"
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
// reads: JSON Lines, a header record first, an end record last.
const ExportFormat = 1

// RecordType tags one line of an export.
type RecordType string

// Record types, in the order an export lists them and an import writes
// them: every record comes after those it refers to, a file's contents
// before its metadata, and the applications last, so that on a store
// without transactions no client reaches a half-imported application.
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
	RecordApp         RecordType = "app"
	RecordEnd         RecordType = "end"
)

// ExportOrder lists the stored record types in export order (file chunks
// are emitted before each file, not listed by stores).
var ExportOrder = []RecordType{RecordAccount, RecordUser, RecordDeletedUser, RecordBan, RecordLastLogin, RecordActivation,
	RecordDevice, RecordSession, RecordLicense, RecordLicenseUse, RecordVariable, RecordFile, RecordApp}

// Record is one line of an export: its type and the one field that type
// carries. Secrets and codes are the hashes the store holds.
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
	End         *ExportEnd    `json:"end,omitempty"`
}

// ExportHeader is an export's first line.
type ExportHeader struct {
	Format     int       `json:"format"`
	ExportedAt time.Time `json:"exported_at"`
}

// ExportEnd is an export's last line: the number of records before it
// and the SHA-256 of every line before it, so that a truncated or altered
// file is refused.
type ExportEnd struct {
	Records int64  `json:"records"`
	SHA256  string `json:"sha256"`
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
	// called). When next or a write fails, nothing written stays visible.
	Import(ctx context.Context, next func() (*Record, error)) error
}

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

// ExportStats counts what an export or import carried, by record type.
type ExportStats map[RecordType]int64

// Export writes every record of the store to w as JSON Lines. progress,
// when not nil, is called with the records written so far every 10,000.
func (s *Service) Export(ctx context.Context, w io.Writer, progress func(n int64)) (ExportStats, error) {
	ex, ok := s.store.(Exporter)
	if !ok {
		return nil, ErrNoExport
	}
	e := &exportWriter{w: bufio.NewWriterSize(w, 64<<10), sum: sha256.New(), stats: ExportStats{}, progress: progress}
	if err := e.write(&Record{Type: RecordHeader, Header: &ExportHeader{Format: ExportFormat, ExportedAt: s.now().UTC()}}); err != nil {
		return nil, err
	}
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
	end := &ExportEnd{Records: e.n, SHA256: hex.EncodeToString(e.sum.Sum(nil))}
	if err := e.write(&Record{Type: RecordEnd, End: end}); err != nil {
		return nil, err
	}
	if err := e.w.Flush(); err != nil {
		return nil, fmt.Errorf("writing the export: %w", err)
	}
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

// Import reads an export from r into the store, which must be empty. It
// stops at the first bad line with an *ImportError naming it, and then
// nothing it wrote stays visible.
func (s *Service) Import(ctx context.Context, r io.Reader) (ExportStats, error) {
	im, ok := s.store.(Importer)
	if !ok {
		return nil, ErrNoExport
	}
	d := newImportReader(r)
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

func newImportReader(r io.Reader) *importReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 128<<10), maxImportLine)
	return &importReader{sc: sc, sum: sha256.New(), stats: ExportStats{}}
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
		if r.End.Records != d.n || r.End.SHA256 != hex.EncodeToString(d.sum.Sum(nil)) {
			return errors.New("the checksum or record count does not match: the file was altered or is incomplete")
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
