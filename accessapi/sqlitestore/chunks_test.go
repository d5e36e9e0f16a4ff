package sqlitestore

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"testing"
)

// TestOpenFile_ReadsFromTheChunkThatHoldsTheOffset checks that a read from
// an offset loads no chunk before the one that holds it.
func TestOpenFile_ReadsFromTheChunkThatHoldsTheOffset(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789abcdef"), 4*chunkSize/16+3)
	if err := s.PutFileContents(ctx, "f", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	off := int64(3*chunkSize + 5)
	rc, err := s.OpenFile(ctx, "f", off)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if _, err := io.ReadFull(rc, buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf, data[off:off+10]) {
		t.Fatalf("read %q, want %q", buf, data[off:off+10])
	}
	if c := rc.(*chunkReader); c.n != 4 {
		t.Fatalf("next chunk %d after the first read, want 4 (only chunk 3 loaded)", c.n)
	}
}

func TestOpen_PragmasMakeWritesDurable(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, db := range []*sql.DB{s.write, s.read} {
		var mode string
		var sync, fk, busy int
		if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`PRAGMA synchronous`).Scan(&sync); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`PRAGMA busy_timeout`).Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if mode != "wal" || sync != 2 || fk != 1 || busy < 1000 {
			t.Fatalf("journal_mode %s, synchronous %d, foreign_keys %d, busy_timeout %d; want wal, 2 (FULL), 1, >= 1000", mode, sync, fk, busy)
		}
	}
}
