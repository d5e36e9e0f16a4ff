package access

import (
	"context"
	"sync"
	"time"
)

// journalClearDelay is how long the journal records whose events were told
// wait to be deleted together: one store call per delay instead of one per
// use case.
const journalClearDelay = 100 * time.Millisecond

// journalClearBatch bounds the IDs of one delete.
const journalClearBatch = 500

// journalClearer deletes the journal records whose events every listener
// was told, in batches. It runs no goroutine of its own between batches: a
// timer armed by the first ID of a batch deletes it, so a service that is
// dropped (a reload) leaves nothing running. A delete that fails leaves the
// records to the journal's recovery, which finds the changes made and
// replays nothing twice (listeners are idempotent per event).
type journalClearer struct {
	store EventJournal

	mu    sync.Mutex
	ids   []string
	armed bool
}

// done marks the record of id as no longer needed ("" is no record).
func (c *journalClearer) done(id string) {
	if id == "" {
		return
	}
	c.mu.Lock()
	c.ids = append(c.ids, id)
	arm := !c.armed
	c.armed = true
	c.mu.Unlock()
	if arm {
		time.AfterFunc(journalClearDelay, func() { _ = c.clear(context.Background()) })
	}
}

// clear deletes the records marked so far.
func (c *journalClearer) clear(ctx context.Context) error {
	c.mu.Lock()
	ids := c.ids
	c.ids, c.armed = nil, false
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for len(ids) > 0 {
		n := min(len(ids), journalClearBatch)
		if err := c.store.DeleteJournal(ctx, ids[:n]); err != nil {
			return wrapStore(err, "deleting journal records")
		}
		ids = ids[n:]
	}
	return nil
}

// ClearJournal deletes at once the journal records of the events this
// service has told (they are otherwise deleted in batches every 100 ms), so
// that a clean stop leaves no record for the recovery to replay.
func (s *Service) ClearJournal(ctx context.Context) error { return s.clearer.clear(ctx) }
