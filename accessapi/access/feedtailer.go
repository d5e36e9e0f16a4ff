package access

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"
)

// FeedConfig tunes a FeedTailer. Zero values take the documented defaults.
type FeedConfig struct {
	// Interval is how often the feed is read. Default 250ms.
	Interval time.Duration
	// Retention is how long entries are kept before pruning. An instance
	// that could not read the feed for longer flushes its caches. Default 1h.
	Retention time.Duration
	// PruneEvery is how often old entries are pruned. Default 1m.
	PruneEvery time.Duration
	// Timeout bounds one read or write of the feed. Default 2s.
	Timeout time.Duration
	// OnFault is told once when the feed stops answering (reads or
	// appends), with the error; OnResume once when it answers again.
	OnFault  func(err error)
	OnResume func()
	// OnFlush is told when the caches were flushed because this instance
	// fell behind the feed's retention.
	OnFlush func()
	// OnApplied is told, for each entry of another instance applied to
	// the caches, how long after the change it was applied (by the two
	// instances' clocks): the feed's lag.
	OnApplied func(lag time.Duration)
}

// maxPendingChanges bounds the entries kept for a retry while the feed
// cannot be written.
const maxPendingChanges = 10000

// changesPerRead bounds one read of the feed.
const changesPerRead = 256

// kindFlushCaches is the feed entry an instance writes when it had to drop
// entries it could not append: every other instance empties its caches.
const kindFlushCaches EventKind = "caches.flushed"

// FeedTailer keeps a Service's caches in step with the change feed. Record
// (an EventListener) appends the service's own changes to the feed; Run
// reads the feed every Interval and evicts what other instances changed.
// While reads succeed the caches keep their entries without expiry; when
// they fail, entries are trusted for at most the service's staleness, as
// without a feed.
type FeedTailer struct {
	feed   ChangeFeed
	cfg    FeedConfig
	origin string

	mu        sync.Mutex
	followers []CacheFollower
	pending   []Change // appends to retry
	faulty    bool     // the last read or append failed
	cursor    int64    // the last entry applied
	synced    bool     // cursor is known
	verify    bool     // check on the next read that no entry was pruned unread
	lastRead  time.Time
}

// NewFeedTailer returns a tailer of feed with a random origin name.
func NewFeedTailer(feed ChangeFeed, cfg FeedConfig) *FeedTailer {
	if cfg.Interval <= 0 {
		cfg.Interval = 250 * time.Millisecond
	}
	if cfg.Retention <= 0 {
		cfg.Retention = time.Hour
	}
	if cfg.PruneEvery <= 0 {
		cfg.PruneEvery = time.Minute
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &FeedTailer{feed: feed, cfg: cfg, origin: hex.EncodeToString(b)}
}

// CacheFollower is a cache outside the Service that the feed keeps in step
// too, as the webhook outbox's endpoints.
type CacheFollower interface {
	// Invalidate drops what another instance's change e can have altered.
	Invalidate(e Event)
	// Flush drops everything.
	Flush()
}

// Follow makes the tailer apply other instances' changes, and flushes, to
// f as well as to the service's caches.
func (t *FeedTailer) Follow(f CacheFollower) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.followers = append(t.followers, f)
}

// invalidate applies another instance's change to svc and the followers.
func (t *FeedTailer) invalidate(svc *Service, e Event) {
	svc.Invalidate(e)
	for _, f := range t.followersNow() {
		f.Invalidate(e)
	}
}

// flush empties svc's caches and the followers'.
func (t *FeedTailer) flush(svc *Service) {
	svc.flushCaches()
	for _, f := range t.followersNow() {
		f.Flush()
	}
}

func (t *FeedTailer) followersNow() []CacheFollower {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.followers
}

// Origin names this tailer's entries in the feed.
func (t *FeedTailer) Origin() string { return t.origin }

// Record is the EventListener that appends events which can alter a cached
// answer to the feed (not those of a user the change created, which no
// instance can have cached: a license sign-up costs one write, not two). The append is tried at once (the use case returns
// after it); one that fails is kept and retried by Run.
func (t *FeedTailer) Record(ctx context.Context, e Event) error {
	if !e.invalidatesCaches() {
		return nil
	}
	c := changeOf(e, t.origin)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.cfg.Timeout)
	defer cancel()
	t.mu.Lock()
	retrying := len(t.pending) > 0
	t.mu.Unlock()
	var err error
	if !retrying {
		if err = t.feed.AppendChange(ctx, &c); err == nil {
			return nil
		}
		t.fault(err)
	}
	t.mu.Lock()
	if len(t.pending) < maxPendingChanges {
		t.pending = append(t.pending, c)
	} else {
		// Too many to keep: what is dropped is replaced by telling every
		// instance to empty its caches.
		t.pending[len(t.pending)-1] = Change{At: c.At, Origin: t.origin, Kind: kindFlushCaches}
	}
	t.mu.Unlock()
	// Kept for Run to retry, which a process that stops now never does.
	return cmp.Or(err, errChangePending)
}

// errChangePending says that a change is kept for a later append.
var errChangePending = errors.New("the change waits for an earlier one to be appended")

// Run follows the feed for svc until ctx ends: it reads every Interval,
// retries failed appends and prunes every PruneEvery.
func (t *FeedTailer) Run(ctx context.Context, svc *Service) {
	tick := time.NewTicker(t.cfg.Interval)
	defer tick.Stop()
	lastPrune := svc.now()
	for {
		_ = t.Poll(ctx, svc)
		if now := svc.now(); now.Sub(lastPrune) >= t.cfg.PruneEvery {
			lastPrune = now
			t.prune(ctx, svc)
			// Another instance prunes by its own clock: check now and then
			// that nothing this one had yet to read went.
			t.mu.Lock()
			t.verify = true
			t.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Poll reads the feed once: it writes the appends that failed, applies the
// entries of other instances to svc's caches and, when all went well,
// lets the caches trust their entries for the staleness bound from the
// read's start. It reports the fault that stopped it.
func (t *FeedTailer) Poll(ctx context.Context, svc *Service) error {
	start := svc.now()
	ctx, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	if err := t.poll(ctx, svc, start); err != nil {
		if ctx.Err() == nil || !errors.Is(err, context.Canceled) {
			t.fault(err)
		}
		return err
	}
	t.mu.Lock()
	resumed := t.faulty
	t.faulty, t.lastRead = false, start
	t.mu.Unlock()
	svc.trust.extend(start.Add(svc.staleness))
	if resumed && t.cfg.OnResume != nil {
		t.cfg.OnResume()
	}
	return nil
}

func (t *FeedTailer) poll(ctx context.Context, svc *Service, start time.Time) error {
	if err := t.flushPending(ctx); err != nil {
		return err
	}
	t.mu.Lock()
	cursor, synced, lastRead, check := t.cursor, t.synced, t.lastRead, t.faulty || t.verify
	t.mu.Unlock()
	behind := synced && start.Sub(lastRead) > t.cfg.Retention/2
	if !synced || behind || check {
		// The newest entry, read before the entries after the cursor: if
		// those are gone while it is newer, they were pruned unread.
		last, err := t.feed.LastChange(ctx)
		if err != nil {
			return err
		}
		if !synced || behind {
			t.resync(svc, last, synced)
			return nil
		}
		if last > cursor {
			next, err := t.feed.ChangesAfter(ctx, cursor, 1)
			if err != nil {
				return err
			}
			if len(next) == 0 {
				t.resync(svc, last, true)
				return nil
			}
		}
		t.mu.Lock()
		t.verify = false
		t.mu.Unlock()
	}
	for {
		cs, err := t.feed.ChangesAfter(ctx, cursor, changesPerRead)
		if err != nil {
			return err
		}
		for _, c := range cs {
			switch {
			case c.Origin == t.origin:
			case c.Kind == kindFlushCaches:
				t.flush(svc)
			default:
				t.invalidate(svc, c.Event())
				if t.cfg.OnApplied != nil {
					t.cfg.OnApplied(svc.now().Sub(c.At))
				}
			}
			cursor = c.Seq
		}
		t.mu.Lock()
		t.cursor = cursor
		t.mu.Unlock()
		if len(cs) < changesPerRead {
			return nil
		}
	}
}

// resync empties the caches, which may hold what entries up to last
// changed, and moves the cursor to last. missed says entries were missed
// (rather than this being the first read), which OnFlush is told.
func (t *FeedTailer) resync(svc *Service, last int64, missed bool) {
	t.flush(svc)
	if missed && t.cfg.OnFlush != nil {
		t.cfg.OnFlush()
	}
	t.mu.Lock()
	t.cursor, t.synced, t.verify = last, true, false
	t.mu.Unlock()
}

// flushPending writes the appends that failed before, in order.
func (t *FeedTailer) flushPending(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.pending) > 0 {
		c := t.pending[0]
		if err := t.feed.AppendChange(ctx, &c); err != nil {
			return err
		}
		t.pending = t.pending[1:]
	}
	t.pending = nil
	return nil
}

// fault records a failure, telling OnFault once per outage.
func (t *FeedTailer) fault(err error) {
	t.mu.Lock()
	first := !t.faulty
	t.faulty = true
	t.mu.Unlock()
	if first && t.cfg.OnFault != nil {
		t.cfg.OnFault(err)
	}
}

func (t *FeedTailer) prune(ctx context.Context, svc *Service) {
	ctx, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	if _, err := t.feed.DeleteChangesBefore(ctx, svc.now().Add(-t.cfg.Retention)); err != nil && ctx.Err() == nil {
		t.fault(err)
	}
}

// Cursor is the sequence number of the last entry applied.
func (t *FeedTailer) Cursor() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cursor
}

// flushCaches empties every cache the change feed keeps in step (all but
// the license uses, which never change).
func (s *Service) flushCaches() {
	s.apps.clear()
	s.users.clear()
	s.sessions.clear()
	s.creds.clear()
	s.devices.clear()
	s.content.clear()
	s.signingKeys.clear()
}
