package conformance

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
)

// testFeedRace appends from 16 goroutines at once: every entry gets its own
// sequence number, and the feed reads back 1..n with no gap, in order.
func testFeedRace(t *testing.T, s access.Store) {
	ctx := context.Background()
	last, err := s.LastChange(ctx)
	if err != nil || last != 0 {
		t.Fatalf("LastChange of an empty feed = %d, %v; want 0", last, err)
	}
	if cs, err := s.ChangesAfter(ctx, 0, 10); err != nil || len(cs) != 0 {
		t.Fatalf("ChangesAfter of an empty feed = %v, %v", cs, err)
	}
	const n = 16
	seqs := make([]int64, n)
	errs := race(n, func(i int) error {
		c := &access.Change{At: epoch, Origin: "o", Kind: access.EventUserBanned, AppID: "app", UserID: fmt.Sprintf("user-%02d", i)}
		err := s.AppendChange(ctx, c)
		seqs[i] = c.Seq
		return err
	})
	for _, err := range errs {
		must(t, err)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	for i, seq := range seqs {
		if seq != int64(i+1) {
			t.Fatalf("sequence numbers %v, want 1..%d", seqs, n)
		}
	}
	var read []access.Change
	for cursor := int64(0); ; {
		cs, err := s.ChangesAfter(ctx, cursor, 5)
		must(t, err)
		if len(cs) == 0 {
			break
		}
		read = append(read, cs...)
		cursor = cs[len(cs)-1].Seq
	}
	if len(read) != n {
		t.Fatalf("read %d entries in pages of 5, want %d", len(read), n)
	}
	users := map[string]bool{}
	for i, c := range read {
		if c.Seq != int64(i+1) || c.Kind != access.EventUserBanned || c.Origin != "o" || c.AppID != "app" || !c.At.Equal(epoch) {
			t.Fatalf("entry %d = %+v", i, c)
		}
		users[c.UserID] = true
	}
	if len(users) != n {
		t.Fatalf("%d distinct users read back, want %d", len(users), n)
	}
	if last, err := s.LastChange(ctx); err != nil || last != n {
		t.Fatalf("LastChange = %d, %v; want %d", last, err, n)
	}
}

// testFeedPrune prunes old entries but keeps the newest, so that the next
// append continues the sequence rather than reusing a number.
func testFeedPrune(t *testing.T, s access.Store) {
	ctx := context.Background()
	for i := range 3 {
		must(t, s.AppendChange(ctx, &access.Change{At: epoch.Add(time.Duration(i) * time.Minute), Origin: "o",
			Kind: access.EventLoggedOut, SessionHash: fmt.Sprintf("h%d", i)}))
	}
	n, err := s.DeleteChangesBefore(ctx, epoch.Add(time.Hour))
	must(t, err)
	if n != 2 {
		t.Fatalf("pruned %d entries, want 2 (the newest stays)", n)
	}
	if cs, err := s.ChangesAfter(ctx, 2, 10); err != nil || len(cs) != 1 || cs[0].SessionHash != "h2" {
		t.Fatalf("ChangesAfter(2) = %v, %v; want the newest", cs, err)
	}
	c := &access.Change{At: epoch, Origin: "o", Kind: access.EventAppChanged, APIKey: "k"}
	must(t, s.AppendChange(ctx, c))
	if c.Seq != 4 {
		t.Fatalf("append after pruning got %d, want 4", c.Seq)
	}
	if cs, err := s.ChangesAfter(ctx, 0, 10); err != nil || len(cs) != 0 {
		t.Fatalf("ChangesAfter(0) after pruning 1 = %v, %v; want none (the gap is the reader's to notice)", cs, err)
	}
}

// testUserState reads a user, their ban and ledger in one call.
func testUserState(t *testing.T, s access.Store) {
	ctx := context.Background()
	a := newApp(t, s)
	u := newUser(t, s, a.ID, "dave")
	_, _, _, err := s.UserState(ctx, uuid.NewString())
	wantErr(t, err, access.ErrNotFound, "UserState of no user")
	got, ban, ledger, err := s.UserState(ctx, u.ID)
	if err != nil || got.ID != u.ID || got.Username != "dave" || got.AppID != a.ID || ban != nil || len(ledger) != 0 {
		t.Fatalf("UserState of a new user = %+v, %+v, %v, %v", got, ban, ledger, err)
	}
	const entries = 20 // more than one batch of a store that reads in batches
	for i := range entries {
		must(t, s.AppendActivation(ctx, &access.Activation{ID: fmt.Sprintf("act-%d", i), AppID: a.ID, UserID: u.ID,
			Type: access.ActivationGrant, OccurredAt: epoch.Add(time.Duration(i) * time.Minute), Minutes: ptr(int64(60 * (i + 1)))}))
	}
	must(t, s.InsertBan(ctx, &access.Ban{UserID: u.ID, Reason: "spam", At: epoch}))
	got, ban, ledger, err = s.UserState(ctx, u.ID)
	must(t, err)
	if got.ID != u.ID || ban == nil || ban.Reason != "spam" || !ban.At.Equal(epoch) || len(ledger) != entries {
		t.Fatalf("UserState = %+v, %+v, %d entries", got, ban, len(ledger))
	}
	want, err := s.Ledger(ctx, u.ID)
	must(t, err)
	for i := range want {
		w, g := want[i], ledger[i]
		if w.Minutes == nil || g.Minutes == nil || *w.Minutes != *g.Minutes {
			t.Fatalf("ledger entry %d minutes = %v, Ledger has %v", i, g.Minutes, w.Minutes)
		}
		w.Minutes, g.Minutes = nil, nil
		if fmt.Sprint(w) != fmt.Sprint(g) {
			t.Fatalf("ledger entry %d = %+v, Ledger has %+v", i, ledger[i], want[i])
		}
	}
}
