package conformance

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// testJournalInsert writes journal records: a taken ID is a duplicate,
// and a record reads back whole.
func testJournalInsert(t *testing.T, s access.Store) {
	ctx := context.Background()
	r := &access.JournalRecord{ID: access.NewAuditID(epoch), At: epoch, Origin: "instance-a", Events: []byte(`{"events":[{"kind":"user.banned"}]}`)}
	must(t, s.InsertJournal(ctx, r))
	again := *r
	again.Origin = "instance-b"
	wantErr(t, s.InsertJournal(ctx, &again), access.ErrDuplicate, "inserting a taken journal ID")
	got, err := s.JournalBefore(ctx, epoch.Add(time.Millisecond), 10)
	must(t, err)
	if len(got) != 1 || got[0].ID != r.ID || !got[0].At.Equal(epoch) || got[0].Origin != "instance-a" || string(got[0].Events) != string(r.Events) {
		t.Fatalf("JournalBefore = %+v, want the one record as written", got)
	}
	if got, err := s.JournalBefore(ctx, epoch, 10); err != nil || len(got) != 0 {
		t.Fatalf("JournalBefore its own time = %v, %v; want none (strictly before)", got, err)
	}
}

// testJournalPaging lists records written before a time, oldest first, a
// page at a time, and deletes them in batches.
func testJournalPaging(t *testing.T, s access.Store) {
	ctx := context.Background()
	const n = 25
	var want []string
	for i := range n {
		at := epoch.Add(time.Duration(n-i) * time.Second) // written newest first
		r := &access.JournalRecord{ID: access.NewAuditID(at), At: at, Origin: "o", Events: []byte(fmt.Sprintf(`{"i":%d}`, i))}
		must(t, s.InsertJournal(ctx, r))
		want = append(want, r.ID)
	}
	slices.Reverse(want)
	cut := epoch.Add(21 * time.Second) // records at 1 s … 20 s are before it
	var seen []string
	for range n {
		page, err := s.JournalBefore(ctx, cut, 7)
		must(t, err)
		if len(page) == 0 {
			break
		}
		if len(page) > 7 {
			t.Fatalf("a page of %d records, limit 7", len(page))
		}
		var ids []string
		for _, r := range page {
			if !r.At.Before(cut) {
				t.Fatalf("record at %v listed before %v", r.At, cut)
			}
			ids = append(ids, r.ID)
		}
		seen = append(seen, ids...)
		must(t, s.DeleteJournal(ctx, ids))
	}
	if !slices.Equal(seen, want[:20]) {
		t.Fatalf("records listed %v, want the 20 oldest oldest first %v", seen, want[:20])
	}
	rest, err := s.JournalBefore(ctx, epoch.Add(time.Hour), 100)
	must(t, err)
	if len(rest) != 5 || rest[0].ID != want[20] {
		t.Fatalf("after deleting the listed ones, %d records are left, want the 5 newest", len(rest))
	}
	// Deleting IDs that have no record (another instance deleted them) is
	// no error, and none is no call at all.
	must(t, s.DeleteJournal(ctx, []string{want[0], rest[0].ID, "no-such-id"}))
	must(t, s.DeleteJournal(ctx, nil))
	rest, err = s.JournalBefore(ctx, epoch.Add(time.Hour), 100)
	must(t, err)
	if len(rest) != 4 {
		t.Fatalf("%d records left, want 4", len(rest))
	}
}
