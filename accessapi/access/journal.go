package access

import (
	"context"
	"time"
)

// The event journal is a write-ahead log of events: a use case records the
// events it is about to cause before it writes its change, and the record
// is deleted once every listener was told of them. A record that outlives
// its use case (the process died between the change and its listeners) is
// found by a JournalSweeper, which checks whether the change took effect
// and tells the listeners then. See docs/design.md, "The event journal".

// JournalRecord is one record of the event journal.
type JournalRecord struct {
	// ID is a UUIDv7 of At, unique.
	ID string
	// At is when the record was written.
	At time.Time
	// Origin names the instance that wrote it.
	Origin string
	// Events are the journaled events and who caused them, as JSON the
	// service writes and reads (journalPayload); opaque to the store.
	Events []byte
}

// EventJournal keeps the event journal. Records are transient: they are
// not exported, and a store holding only journal records is empty for an
// import.
type EventJournal interface {
	// InsertJournal adds a record; ErrDuplicate means its ID is taken.
	InsertJournal(ctx context.Context, r *JournalRecord) error
	// DeleteJournal deletes the records of these IDs; IDs without a record
	// are no error.
	DeleteJournal(ctx context.Context, ids []string) error
	// JournalBefore lists up to limit records written before t, oldest
	// first (by time, then ID), on an index: its cost is proportional to
	// the page.
	JournalBefore(ctx context.Context, t time.Time, limit int) ([]JournalRecord, error)
}
