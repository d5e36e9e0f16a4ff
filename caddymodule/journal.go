package caddymodule

import (
	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
)

// newJournalSweeper returns the sweeper of the event journal, which logs
// every event it recovers or drops (kinds and identifiers, never a secret).
func (a *App) newJournalSweeper() *access.JournalSweeper {
	log := a.logger.Named("journal")
	return access.NewJournalSweeper(access.JournalSweeperConfig{
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
