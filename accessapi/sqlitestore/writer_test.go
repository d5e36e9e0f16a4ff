package sqlitestore

import (
	"context"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

func TestWriter_APanickingWriteFailsAloneAndTheWriterGoesOn(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	err = s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO deleted_users (user_id) VALUES ('half')`); err != nil {
			return err
		}
		panic("bug")
	})
	if err == nil {
		t.Fatal("a panicking write succeeded")
	}
	if deleted, err := s.IsUserDeleted(ctx, "half"); err != nil || deleted {
		t.Fatalf("the panicking write's statement was kept (%v, %v)", deleted, err)
	}
	if err := s.InsertApp(ctx, &access.App{ID: "a", APIKey: "k", CreatedAt: time.Now()}); err != nil {
		t.Fatalf("a write after the panic: %v", err)
	}
}
