package caddymodule

import (
	"time"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
)

// The least journal_grace and journal_sweep_interval Validate takes. The
// grace must outlast a use case that waits on its store: SQLite's busy
// wait is 10 s, and a MongoDB write may wait out a primary's election
// (about 12 s) before its one retry.
const (
	minJournalGrace         = 30 * time.Second
	minJournalSweepInterval = time.Second
)

// newJournalSweeper returns the sweeper of the event journal, every
// journal_sweep_interval for records older than journal_grace (0: the
// sweeper's defaults, 10s and 1m), which logs every event it recovers or
// drops (kinds and identifiers, never a secret).
func (a *App) newJournalSweeper() *access.JournalSweeper {
	log := a.logger.Named("journal")
	return access.NewJournalSweeper(access.JournalSweeperConfig{
		Interval: time.Duration(a.JournalSweepInterval),
		Grace:    time.Duration(a.JournalGrace),
		OnRecovered: func(e access.Event, outcome access.RecoveryOutcome) {
			log.Warn("recovered an event whose instance stopped before telling it",
				zap.String("event", string(e.Kind)), zap.String("event_id", e.ID), zap.String("app_id", e.AppID),
				zap.String("outcome", string(outcome)))
		},
		OnError: func(err error) {
			log.Warn("the event journal cannot be swept; its records stay for the next sweep", zap.Error(err))
		},
	})
}
