package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	"github.com/appaccess/appaccess/accessapi/access"
)

// PutVariable implements access.ContentStore: the last write wins.
func (s *Store) PutVariable(ctx context.Context, v *access.Variable) error {
	_, err := s.exec(ctx, `INSERT INTO variables (app_id, name, value) VALUES (?, ?, ?)
		ON CONFLICT (app_id, name) DO UPDATE SET value = excluded.value`, v.AppID, v.Name, v.Value)
	return err
}

// DeleteVariable implements access.ContentStore.
func (s *Store) DeleteVariable(ctx context.Context, appID, name string) error {
	return mustAffect(s.exec(ctx, `DELETE FROM variables WHERE app_id = ? AND name = ?`, appID, name))
}

// Variables implements access.ContentStore.
func (s *Store) Variables(ctx context.Context, appID string) ([]access.Variable, error) {
	rows, err := s.query(ctx, `SELECT name, value FROM variables WHERE app_id = ? ORDER BY name`, appID)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.Variable
	for rows.Next() {
		v := access.Variable{AppID: appID}
		if err := rows.Scan(&v.Name, &v.Value); err != nil {
			return nil, mapErr(err)
		}
		out = append(out, v)
	}
	return out, mapErr(rows.Err())
}

// chunkSize is the size of one stored piece of a file.
const chunkSize = 256 << 10

// PutFileContents implements access.ContentStore. Each chunk is read from r
// before its own short transaction, so no write transaction waits on r. A
// failure removes the chunks written so far.
func (s *Store) PutFileContents(ctx context.Context, fileID string, r io.Reader) error {
	buf := make([]byte, chunkSize)
	for n := 0; ; n++ {
		k, err := io.ReadFull(r, buf)
		if k > 0 || n == 0 {
			if _, werr := s.exec(ctx, `INSERT INTO file_chunks (file_id, n, data) VALUES (?, ?, ?)`, fileID, n, buf[:k]); werr != nil {
				s.deleteChunks(fileID)
				return fmt.Errorf("storing chunk %d: %w", n, werr)
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			s.deleteChunks(fileID)
			return err
		}
	}
}

func (s *Store) deleteChunks(fileID string) {
	_, _ = s.exec(context.Background(), `DELETE FROM file_chunks WHERE file_id = ?`, fileID)
}

// InsertFile implements access.ContentStore.
func (s *Store) InsertFile(ctx context.Context, f *access.File) error {
	_, err := s.exec(ctx, `INSERT INTO files (`+fileColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.ID, f.AppID, f.Name, f.MimeType, boolInt(f.IsEncrypted), f.Size, f.SHA256, ms(f.CreatedAt), f.KeyID)
	return err
}

const fileColumns = `id, app_id, name, mime_type, is_encrypted, size, sha256, created_at, key_id`

func scanFile(row interface{ Scan(...any) error }) (*access.File, error) {
	var f access.File
	var created int64
	if err := row.Scan(&f.ID, &f.AppID, &f.Name, &f.MimeType, &f.IsEncrypted, &f.Size, &f.SHA256, &created, &f.KeyID); err != nil {
		return nil, mapErr(err)
	}
	f.CreatedAt = fromMS(created)
	return &f, nil
}

// Files implements access.ContentStore.
func (s *Store) Files(ctx context.Context, appID string) ([]access.File, error) {
	rows, err := s.query(ctx, `SELECT `+fileColumns+` FROM files WHERE app_id = ? ORDER BY created_at, id`, appID)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []access.File
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *f)
	}
	return out, mapErr(rows.Err())
}

// FileByID implements access.ContentStore.
func (s *Store) FileByID(ctx context.Context, fileID string) (*access.File, error) {
	return scanFile(s.queryRow(ctx, `SELECT `+fileColumns+` FROM files WHERE id = ?`, fileID))
}

// OpenFile implements access.ContentStore: it starts at the chunk that
// holds offset and reads one chunk at a time.
func (s *Store) OpenFile(ctx context.Context, fileID string, offset int64) (io.ReadCloser, error) {
	var exists int
	if err := s.queryRow(ctx, `SELECT count(*) FROM file_chunks WHERE file_id = ? AND n = 0`, fileID).Scan(&exists); err != nil {
		return nil, mapErr(err)
	}
	if exists == 0 {
		return nil, access.ErrNotFound
	}
	return &chunkReader{s: s, ctx: ctx, fileID: fileID, n: offset / chunkSize, skip: offset % chunkSize}, nil
}

// chunkReader reads a file's chunks in order.
type chunkReader struct {
	s      *Store
	ctx    context.Context
	fileID string
	n      int64 // the next chunk to load
	skip   int64 // bytes to drop from the next chunk loaded
	buf    []byte
	done   bool
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.done {
			return 0, io.EOF
		}
		var data []byte
		err := c.s.queryRow(c.ctx, `SELECT data FROM file_chunks WHERE file_id = ? AND n = ?`, c.fileID, c.n).Scan(&data)
		if errors.Is(err, sql.ErrNoRows) {
			c.done = true
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("reading chunk %d: %w", c.n, err)
		}
		c.n++
		if len(data) < chunkSize {
			c.done = true
		}
		if c.skip >= int64(len(data)) {
			c.skip -= int64(len(data))
			continue
		}
		c.buf, c.skip = data[c.skip:], 0
	}
	k := copy(p, c.buf)
	c.buf = c.buf[k:]
	return k, nil
}

func (c *chunkReader) Close() error { return nil }

// DeleteFile implements access.ContentStore.
func (s *Store) DeleteFile(ctx context.Context, fileID string) error {
	var found bool
	err := s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM files WHERE id = ?`, fileID)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		found = n > 0
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM file_chunks WHERE file_id = ?`, fileID)
		return err
	})
	if err == nil && !found {
		return access.ErrNotFound
	}
	return err
}
