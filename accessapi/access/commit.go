package access

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// A use case whose change causes events that a listener persists (the
// change feed, the webhook outbox, the audit log) writes them to the event
// journal first, then its change, then tells the listeners and lets the
// record go. A crash anywhere leaves either no change or a record that the
// journal's recovery (Service.RecoverJournal) finishes.

// journalPayload is what a journal record holds: the events and who caused
// them (the audit log names the principal).
type journalPayload struct {
	Principal Principal `json:"principal"`
	Events    []Event   `json:"events"`
}

// pendingEvents are events journaled before their change is written.
type pendingEvents struct {
	s *Service
	// id is the journal record's ID; empty when nothing was journaled.
	id  string
	evs []Event
}

// persisted reports whether a listener writes something of e to the store
// (a change-feed entry, an audit entry, a webhook delivery), so that a
// crash before it is told would lose something. A webhook event is
// persisted only if an endpoint subscribes to it, when the service can
// tell (Config.Subscribed); when it cannot read the endpoints, it is.
func (s *Service) persisted(ctx context.Context, e Event) bool {
	if _, audited := auditLogOf(e); audited || e.invalidatesCaches() {
		return true
	}
	if e.AppID == "" || !slices.Contains(WebhookEvents, e.Kind) {
		return false
	}
	if s.subscribed == nil {
		return true
	}
	ok, err := s.subscribed(ctx, e)
	return ok || err != nil
}

// journal stamps evs with the time and, when a listener persists any of
// them, writes them to the journal, each with its ID, before the change.
func (s *Service) journal(ctx context.Context, evs ...Event) (*pendingEvents, error) {
	now := s.Now()
	for i := range evs {
		if evs[i].At.IsZero() {
			evs[i].At = now
		}
	}
	p := &pendingEvents{s: s, evs: evs}
	if !slices.ContainsFunc(evs, func(e Event) bool { return s.persisted(ctx, e) }) {
		return p, nil
	}
	id := NewAuditID(now)
	for i := range evs {
		evs[i].ID = eventID(id, i)
	}
	body, err := json.Marshal(journalPayload{Principal: PrincipalOf(ctx), Events: evs})
	if err != nil {
		return nil, fmt.Errorf("encoding the events of %s: %w", evs[0].Kind, err)
	}
	if err := s.store.InsertJournal(ctx, &JournalRecord{ID: id, At: now, Origin: s.origin, Events: body}); err != nil {
		return nil, wrapStore(err, "journaling "+string(evs[0].Kind))
	}
	p.id = id
	return p, nil
}

// tell tells the listeners of the events, whose change is stored, and lets
// their journal record go, unless a listener could not write what it
// records: then the record stays, and the journal's recovery tells them
// again (a listener writes nothing twice).
func (p *pendingEvents) tell(ctx context.Context) {
	failed := false
	for _, e := range p.evs {
		if p.s.emit(ctx, e) {
			failed = true
		}
	}
	if !failed {
		p.s.clearer.done(p.id)
	}
}

// failed settles the record of a change that failed with err: a definite
// refusal (the change was not made) lets it go, any other error (the store
// unreachable, a deadline: the change may have been made) leaves it to the
// journal's recovery.
func (p *pendingEvents) failed(err error) {
	if definite(err) {
		p.s.clearer.done(p.id)
	}
}

// definite reports whether err says for sure that a write was not made.
func definite(err error) bool {
	var refusal *Error
	return errors.Is(err, ErrNotFound) || errors.Is(err, ErrDuplicate) || errors.As(err, &refusal)
}

// commit journals evs, runs write (the change) and, if it succeeded, tells
// the listeners of evs. It returns write's error as it is.
func (s *Service) commit(ctx context.Context, write func(ctx context.Context) error, evs ...Event) error {
	p, err := s.journal(ctx, evs...)
	if err != nil {
		return err
	}
	if err := write(ctx); err != nil {
		p.failed(err)
		return err
	}
	p.tell(ctx)
	return nil
}
