package access

import (
	"context"
	"time"
)

// DefaultAdminIdleTimeout ends a dashboard session after this long
// without a request; AdminSessionTTL bounds it whatever its activity.
const DefaultAdminIdleTimeout = 30 * time.Minute

// adminActivityGrain is how stale a session's recorded activity may get
// before a request records it again: its expiry is written at most once a
// minute per session, not on every request, so the idle timeout is kept
// to within a minute. A shorter idle timeout takes a quarter of itself
// (activityGrain), or a session used more often than its timeout could
// still end with nothing written.
const adminActivityGrain = time.Minute

// activityGrain is the grain of the configured idle timeout.
func (s *Service) activityGrain() time.Duration { return min(adminActivityGrain, s.adminIdle/4) }

// adminSessionEnd is when a session created at created and used at now
// ends unless used again: now plus the idle timeout, never past its
// absolute end.
func (s *Service) adminSessionEnd(created, now time.Time) time.Time {
	end := now.Add(s.adminIdle)
	if abs := created.Add(AdminSessionTTL); abs.Before(end) {
		return abs
	}
	return end
}

// adminSessionLive reports whether sess may still be used at now: neither
// idle past its ExpiresAt nor older than AdminSessionTTL.
func adminSessionLive(sess *AdminSession, now time.Time) bool {
	return now.Before(sess.ExpiresAt) && now.Before(sess.CreatedAt.Add(AdminSessionTTL))
}

// touchAdminSession records a request on sess: it moves the session's
// idle end to now plus the idle timeout when the stored one is more than
// its activityGrain away from it (either way, so a session stored before
// the idle timeout, or under a longer one, takes the current one at its
// next request). Best effort: a failed write leaves the session the end
// it had, which can only end it sooner; one ended meanwhile is not
// brought back.
func (s *Service) touchAdminSession(ctx context.Context, sess *AdminSession, now time.Time) {
	end := s.adminSessionEnd(sess.CreatedAt, now)
	if g, d := s.activityGrain(), end.Sub(sess.ExpiresAt); d <= g && d >= -g {
		return
	}
	if s.store.SetAdminSessionExpiry(ctx, sess.TokenHash, end) == nil {
		sess.ExpiresAt = end
	}
}
