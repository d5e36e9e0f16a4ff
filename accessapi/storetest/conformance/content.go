package conformance

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
)

func testFiles(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	const kib = 1 << 10
	data := make([]byte, 2*256*kib+600*kib/2+17)
	_, _ = rand.Read(data)
	f := &access.File{ID: uuid.NewString(), AppID: a.ID, Name: "big.bin", MimeType: "application/octet-stream",
		Size: int64(len(data)), SHA256: "x", CreatedAt: epoch}
	must(t, s.PutFileContents(ctx, f.ID, bytes.NewReader(data)))
	must(t, s.InsertFile(ctx, f))
	wantErr(t, s.InsertFile(ctx, f), access.ErrDuplicate, "InsertFile with a taken ID")
	for _, off := range []int64{0, 1, 255 * kib, 256*kib - 1, 256 * kib, 256*kib + 1, 600 * kib, int64(len(data)) - 1, int64(len(data)), int64(len(data)) + 10} {
		rc, err := s.OpenFile(ctx, f.ID, off)
		must(t, err)
		got, err := io.ReadAll(rc)
		_ = rc.Close()
		must(t, err)
		want := data[min(off, int64(len(data))):]
		if !bytes.Equal(got, want) {
			t.Fatalf("from offset %d: %d bytes, want %d", off, len(got), len(want))
		}
	}
	empty := &access.File{ID: uuid.NewString(), AppID: a.ID, Name: "empty", MimeType: "text/plain", CreatedAt: epoch.Add(time.Second)}
	must(t, s.PutFileContents(ctx, empty.ID, bytes.NewReader(nil)))
	must(t, s.InsertFile(ctx, empty))
	rc, err := s.OpenFile(ctx, empty.ID, 0)
	must(t, err)
	if got, err := io.ReadAll(rc); err != nil || len(got) != 0 {
		t.Fatalf("empty file: %d bytes, %v", len(got), err)
	}
	_ = rc.Close()

	got, err := s.FileByID(ctx, f.ID)
	if err != nil || *got != *f {
		t.Fatalf("FileByID = %+v, %v; want %+v", got, err, f)
	}
	files, err := s.Files(ctx, a.ID)
	if err != nil || len(files) != 2 || files[0].ID != f.ID {
		t.Fatalf("Files = %v, %v", files, err)
	}
	_, err = s.FileByID(ctx, "missing")
	wantErr(t, err, access.ErrNotFound, "FileByID of a missing file")
	_, err = s.OpenFile(ctx, uuid.NewString(), 0)
	wantErr(t, err, access.ErrNotFound, "OpenFile of a missing file")
	must(t, s.DeleteFile(ctx, f.ID))
	wantErr(t, s.DeleteFile(ctx, f.ID), access.ErrNotFound, "second DeleteFile")
	_, err = s.OpenFile(ctx, f.ID, 0)
	wantErr(t, err, access.ErrNotFound, "OpenFile after DeleteFile")

	// Contents whose reader fails are not kept.
	failed := uuid.NewString()
	if err := s.PutFileContents(ctx, failed, io.MultiReader(bytes.NewReader(data), failingReader{})); err == nil {
		t.Fatal("PutFileContents with a failing reader succeeded")
	}
	_, err = s.OpenFile(ctx, failed, 0)
	wantErr(t, err, access.ErrNotFound, "OpenFile of contents whose upload failed")
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, fmt.Errorf("connection reset") }

func testVariables(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	must(t, s.PutVariable(ctx, &access.Variable{AppID: a.ID, Name: "b", Value: "1"}))
	must(t, s.PutVariable(ctx, &access.Variable{AppID: a.ID, Name: "a", Value: "2"}))
	must(t, s.PutVariable(ctx, &access.Variable{AppID: a.ID, Name: "b", Value: "3"}))
	vs, err := s.Variables(ctx, a.ID)
	must(t, err)
	if fmt.Sprint(vs) != fmt.Sprint([]access.Variable{{AppID: a.ID, Name: "a", Value: "2"}, {AppID: a.ID, Name: "b", Value: "3"}}) {
		t.Fatalf("Variables = %v", vs)
	}
	must(t, s.DeleteVariable(ctx, a.ID, "a"))
	wantErr(t, s.DeleteVariable(ctx, a.ID, "a"), access.ErrNotFound, "second DeleteVariable")
}
