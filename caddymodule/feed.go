package caddymodule

import (
	"time"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
)

// newFeedTailer returns the tailer of the store's change feed, whose faults
// are logged once per outage.
func (a *App) newFeedTailer(feed access.ChangeFeed) *access.FeedTailer {
	log := a.logger.Named("feed")
	feedUp.Set(1)
	return access.NewFeedTailer(feed, access.FeedConfig{
		Interval:  time.Duration(a.FeedInterval),
		Retention: time.Duration(a.FeedRetention),
		OnFault: func(err error) {
			feedUp.Set(0)
			log.Warn("the change feed cannot be read or written; cached answers are trusted for at most staleness until it can",
				zap.Error(err))
		},
		OnResume: func() {
			feedUp.Set(1)
			log.Info("the change feed answers again")
		},
		OnFlush: func() {
			feedFlushesTotal.Inc()
			log.Warn("this instance missed pruned entries of the change feed; its caches were emptied")
		},
		OnApplied: func(lag time.Duration) { feedLagSeconds.Observe(max(lag, 0).Seconds()) },
	})
}
