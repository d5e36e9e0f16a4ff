package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// Config tunes a Dispatcher. Zero values take the documented defaults.
type Config struct {
	// Key opens the endpoints' secrets (access.WebhookKey of the file key).
	Key []byte
	// AllowPrivateNetworks lets deliveries go to loopback, private,
	// link-local and other internal addresses, which are refused by
	// default (see Blocked).
	AllowPrivateNetworks bool
	// PollInterval is how often the store is asked for due deliveries.
	// Default 1s. Wake starts a poll at once.
	PollInterval time.Duration
	// Timeout bounds one attempt, from dialling to the end of the answer.
	// Default 15s.
	Timeout time.Duration
	// Concurrency bounds the attempts in flight. Default 16.
	Concurrency int
	// Backoff schedules retries.
	Backoff access.WebhookBackoff
	// AbandonAfter is how long after its claim an attempt without a
	// result is taken for lost (its dispatcher stopped) and the delivery
	// moves on to the next attempt. Default 2 × Timeout + 30s.
	AbandonAfter time.Duration
	// OnError is told of store failures (never of an endpoint's).
	OnError func(error)
	// OnAttempt is told of every attempt this dispatcher made: the
	// delivery's status after it (pending means it will be retried) and
	// how long the request took.
	OnAttempt func(outcome access.DeliveryStatus, took time.Duration)
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Client sends the requests; default one with the SSRF guard, no
	// proxy, no redirects followed and Timeout.
	Client *http.Client
}

// Dispatcher sends due deliveries. Several dispatchers, in one process or
// many, may share a store: each attempt is claimed by a unique insert
// (access.DeliveryAttempt) and only its claimant sends it. Delivery is at
// least once: an attempt whose claimant stops before recording the result
// is made again (with the same webhook-id).
type Dispatcher struct {
	store access.WebhookStore
	cfg   Config
	wake  chan struct{}
	slots chan struct{}

	mu       sync.Mutex
	inFlight map[string]bool // delivery IDs this dispatcher is attempting
	wg       sync.WaitGroup
}

// New returns a dispatcher of store's deliveries; Run starts it.
func New(store access.WebhookStore, cfg Config) *Dispatcher {
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 16
	}
	if cfg.AbandonAfter <= 0 {
		cfg.AbandonAfter = 2*cfg.Timeout + 30*time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Client == nil {
		cfg.Client = newClient(cfg.AllowPrivateNetworks, cfg.Timeout)
	}
	return &Dispatcher{store: store, cfg: cfg, wake: make(chan struct{}, 1), slots: make(chan struct{}, cfg.Concurrency),
		inFlight: map[string]bool{}}
}

// newClient is the HTTP client of deliveries.
func newClient(allowPrivate bool, timeout time.Duration) *http.Client {
	t := &http.Transport{
		DialContext:           newDialer(allowPrivate).DialContext,
		Proxy:                 nil, // a proxy would dial on our behalf, past the guard
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{Transport: t, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Wake makes the dispatcher poll now (the outbox queued deliveries).
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run polls and sends until ctx ends, then waits for the attempts in
// flight (each bounded by Timeout) to finish.
func (d *Dispatcher) Run(ctx context.Context) {
	defer d.wg.Wait()
	t := time.NewTicker(d.cfg.PollInterval)
	defer t.Stop()
	for {
		d.poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-d.wake:
		}
	}
}

// poll starts an attempt for each due delivery, as slots allow.
func (d *Dispatcher) poll(ctx context.Context) {
	free := d.cfg.Concurrency - len(d.slots)
	if free <= 0 || ctx.Err() != nil {
		return
	}
	// Those in flight here are listed too (still pending) and skipped.
	due, err := d.store.DueDeliveries(ctx, d.cfg.Now(), free+d.inFlightCount())
	if err != nil {
		if ctx.Err() == nil {
			d.fail(fmt.Errorf("listing due webhook deliveries: %w", err))
		}
		return
	}
	for i := range due {
		dl := due[i]
		if !d.take(dl.ID) {
			continue
		}
		select {
		case d.slots <- struct{}{}:
		case <-ctx.Done():
			d.release(dl.ID)
			return
		}
		d.wg.Go(func() {
			defer func() {
				if v := recover(); v != nil { // a bug fails one attempt, not the server
					d.fail(fmt.Errorf("webhook delivery %s: attempt panicked: %v", dl.ID, v))
				}
				<-d.slots
				d.release(dl.ID)
			}()
			d.attempt(ctx, &dl)
		})
	}
}

func (d *Dispatcher) inFlightCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.inFlight)
}

func (d *Dispatcher) take(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.inFlight[id] {
		return false
	}
	d.inFlight[id] = true
	return true
}

func (d *Dispatcher) release(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.inFlight, id)
}

// attempt claims the delivery's next attempt and, if this dispatcher won
// the claim, sends it and records the result. A stop (ctx ending) cuts the
// request short; the attempt is then recorded as failed and retried.
func (d *Dispatcher) attempt(runCtx context.Context, dl *access.WebhookDelivery) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(runCtx), d.cfg.Timeout+10*time.Second) // the store's writes
	defer cancel()
	a := &access.DeliveryAttempt{DeliveryID: dl.ID, Number: dl.Attempts + 1, ClaimedAt: d.cfg.Now()}
	err := d.store.InsertDeliveryAttempt(ctx, a)
	if errors.Is(err, access.ErrDuplicate) {
		d.settle(ctx, dl, a.Number)
		return
	}
	if err != nil {
		d.fail(fmt.Errorf("claiming attempt %d of webhook delivery %s: %w", a.Number, dl.ID, err))
		return
	}
	// A lease: the delivery is not due again (for other dispatchers to
	// try and lose the claim) until the attempt would be taken for lost.
	lease := *dl
	lease.NextAttemptAt = a.ClaimedAt.Add(d.cfg.AbandonAfter)
	if err := d.store.UpdateDelivery(ctx, &lease, dl.Attempts); err != nil && !errors.Is(err, access.ErrNotFound) {
		d.fail(fmt.Errorf("leasing webhook delivery %s for attempt %d: %w", dl.ID, a.Number, err))
	}
	start := time.Now()
	status, sendErr := d.send(ctx, runCtx, dl)
	a.Duration = time.Since(start).Round(time.Millisecond)
	a.Finished, a.StatusCode = true, status
	now := d.cfg.Now()
	switch {
	case sendErr == nil && status >= 200 && status < 300:
		a.Outcome = access.DeliveryDelivered
	case errors.Is(sendErr, errEndpointGone):
		a.Outcome, a.Error = access.DeliveryFailed, sendErr.Error()
	default:
		if sendErr != nil {
			a.Error = sendErr.Error()
		} else {
			a.Error = "HTTP " + strconv.Itoa(status)
		}
		if status == http.StatusGone {
			a.Outcome = access.DeliveryFailed // the receiver asks for no more
		} else if next, ok := d.cfg.Backoff.Next(dl.RetryFrom, now); ok {
			a.Outcome, a.NextAttemptAt = access.DeliveryPending, next
		} else {
			a.Outcome = access.DeliveryFailed
		}
	}
	if d.cfg.OnAttempt != nil {
		d.cfg.OnAttempt(a.Outcome, a.Duration)
	}
	if err := d.store.FinishDeliveryAttempt(ctx, a); err != nil {
		d.fail(fmt.Errorf("recording attempt %d of webhook delivery %s: %w", a.Number, dl.ID, err))
	}
	d.apply(ctx, dl, a)
}

// apply moves the delivery on by a finished (or abandoned) attempt.
func (d *Dispatcher) apply(ctx context.Context, dl *access.WebhookDelivery, a *access.DeliveryAttempt) {
	was := dl.Attempts
	next := *dl
	next.Attempts, next.Status, next.LastStatus, next.LastError = a.Number, a.Outcome, a.StatusCode, a.Error
	if a.Outcome == access.DeliveryPending {
		next.NextAttemptAt = a.NextAttemptAt
	}
	err := d.store.UpdateDelivery(ctx, &next, was)
	if err != nil && !errors.Is(err, access.ErrNotFound) { // ErrNotFound: another dispatcher moved it on
		d.fail(fmt.Errorf("updating webhook delivery %s after attempt %d: %w", dl.ID, a.Number, err))
	}
}

// settle handles a delivery whose next attempt another dispatcher claimed:
// if that attempt finished but the delivery was not moved on (its
// dispatcher stopped in between), or it never finished and is older than
// AbandonAfter, the delivery is moved on so its attempts continue.
func (d *Dispatcher) settle(ctx context.Context, dl *access.WebhookDelivery, number int) {
	a, err := d.store.DeliveryAttempt(ctx, dl.ID, number)
	if err != nil {
		if !errors.Is(err, access.ErrNotFound) {
			d.fail(fmt.Errorf("reading attempt %d of webhook delivery %s: %w", number, dl.ID, err))
		}
		return
	}
	switch {
	case a.Finished:
		// The result is recorded; the claimant may be updating the
		// delivery right now, which writes the same state.
		if a.ClaimedAt.Add(d.cfg.Timeout).Before(d.cfg.Now()) {
			d.apply(ctx, dl, a)
		}
	case d.cfg.Now().Sub(a.ClaimedAt) > d.cfg.AbandonAfter:
		a.Error = "the dispatcher that made this attempt stopped before recording its result"
		a.Outcome, a.NextAttemptAt = access.DeliveryPending, d.cfg.Now()
		d.apply(ctx, dl, a)
	}
}

// errEndpointGone fails a delivery whose endpoint was deleted or disabled.
var errEndpointGone = errors.New("the endpoint was deleted or disabled; not sent")

// send makes one request; it returns the status, or an error when there
// was no answer.
func (d *Dispatcher) send(ctx, runCtx context.Context, dl *access.WebhookDelivery) (int, error) {
	w, err := d.store.WebhookByID(ctx, dl.WebhookID)
	if errors.Is(err, access.ErrNotFound) || (err == nil && !w.Enabled) {
		return 0, errEndpointGone
	}
	if err != nil {
		return 0, fmt.Errorf("reading the endpoint: %w", err)
	}
	at := d.cfg.Now()
	// During a rotation's overlap, signed with the new and the old secret.
	secrets, err := access.OpenWebhookSecrets(d.cfg.Key, w, at)
	if err != nil {
		d.fail(err)
		return 0, errors.New("the endpoint's secret cannot be opened (file key changed?)")
	}
	sig, err := SignAll(secrets, dl.ID, at, dl.Payload)
	if err != nil {
		return 0, err
	}
	reqCtx, cancel := context.WithTimeout(runCtx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, w.URL, bytes.NewReader(dl.Payload))
	if err != nil {
		return 0, fmt.Errorf("building the request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "AppAccess-Webhooks/1")
	req.Header.Set(HeaderID, dl.ID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(HeaderSignature, sig)
	resp, err := d.cfg.Client.Do(req)
	if err != nil {
		if runCtx.Err() != nil {
			return 0, errors.New("the dispatcher stopped during the attempt")
		}
		return 0, errors.New(redactURL(err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

// redactURL words a transport error without the URL, which may hold a
// token in its query.
func redactURL(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner.Error()
		}
	}
	return err.Error()
}

func (d *Dispatcher) fail(err error) {
	if d.cfg.OnError != nil {
		d.cfg.OnError(err)
	}
}
