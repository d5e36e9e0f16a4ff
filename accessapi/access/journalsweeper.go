package access

import (
	"context"
	"time"
)

// JournalSweeperConfig tunes a JournalSweeper. Zero values take the
// documented defaults.
type JournalSweeperConfig struct {
	// Interval is how often the journal is read. Default 10s.
	Interval time.Duration
	// Grace is how old a record must be to be recovered: longer than any
	// use case takes (its store calls are bounded well below it), so a
	// record of a use case still running is left to it. Default 1m.
	Grace time.Duration
	// Batch bounds the records of one read. Default 100.
	Batch int
	// OnRecovered is told of every event a sweep recovered or dropped.
	OnRecovered func(Event, RecoveryOutcome)
	// OnError is told of a sweep that failed (the records stay).
	OnError func(error)
}

// JournalSweeper finishes the journal records that their instance left
// behind (it died between a change and its listeners; see
// Service.RecoverJournal). Every instance runs one; several recovering one
// record at once is safe.
type JournalSweeper struct {
	cfg JournalSweeperConfig
}

// NewJournalSweeper returns a sweeper.
func NewJournalSweeper(cfg JournalSweeperConfig) *JournalSweeper {
	if cfg.Interval <= 0 {
		cfg.Interval = 10 * time.Second
	}
	if cfg.Grace <= 0 {
		cfg.Grace = time.Minute
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 100
	}
	return &JournalSweeper{cfg: cfg}
}

// Run sweeps svc's store every Interval until ctx ends.
func (w *JournalSweeper) Run(ctx context.Context, svc *Service) {
	tick := time.NewTicker(w.cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := w.Sweep(ctx, svc); err != nil && ctx.Err() == nil && w.cfg.OnError != nil {
			w.cfg.OnError(err)
		}
	}
}

// Sweep recovers every record older than Grace, a batch at a time.
func (w *JournalSweeper) Sweep(ctx context.Context, svc *Service) error {
	before := svc.Now().Add(-w.cfg.Grace)
	for {
		n, err := svc.RecoverJournal(ctx, before, w.cfg.Batch, w.cfg.OnRecovered)
		if err != nil || n < w.cfg.Batch {
			return err
		}
	}
}
