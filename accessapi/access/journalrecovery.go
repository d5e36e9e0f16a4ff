package access

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// RecoveryOutcome is what the journal's recovery did with one event.
type RecoveryOutcome string

// The outcomes of a recovered event.
const (
	// RecoveryTold: the store shows the change was made; the listeners
	// were told.
	RecoveryTold RecoveryOutcome = "told"
	// RecoveryUnchecked: the event's kind has no cheap check; the
	// listeners were told (a cache eviction is always safe, the audit
	// entry is marked recovered).
	RecoveryUnchecked RecoveryOutcome = "unchecked"
	// RecoveryDropped: the store shows the change was not made; nothing
	// was told.
	RecoveryDropped RecoveryOutcome = "dropped"
)

// eventID is the ID of the i-th event of journal record recordID.
func eventID(recordID string, i int) string { return recordID + "." + strconv.Itoa(i) }

// RecoverJournal finishes up to limit journal records written before
// `before` (older than any use case can take, so their use cases are
// over): for each event it checks in the store whether the change was made
// and, if so or when it cannot tell, tells the listeners with
// Event.Recovered set; then it deletes the record. Listeners are
// idempotent per event, so a record its use case had finished, or that
// another instance recovers at the same time, changes nothing twice. told
// is told of every event (nil: not told). A record whose check cannot be
// read stays for the next call. It returns how many records it finished.
func (s *Service) RecoverJournal(ctx context.Context, before time.Time, limit int, told func(Event, RecoveryOutcome)) (int, error) {
	recs, err := s.store.JournalBefore(ctx, before, limit)
	if err != nil {
		return 0, wrapStore(err, "reading the event journal")
	}
	var done []string
	var failed error
	for _, r := range recs {
		var p journalPayload
		if err := json.Unmarshal(r.Events, &p); err != nil {
			// Written by this program, so never expected; kept for a
			// person to read rather than replayed wrong.
			failed = errors.Join(failed, fmt.Errorf("reading journal record %s: %w", r.ID, err))
			continue
		}
		outcomes := make([]RecoveryOutcome, len(p.Events))
		for i := range p.Events {
			p.Events[i].ID = eventID(r.ID, i)
			if outcomes[i], err = s.tookEffect(ctx, p.Events[i]); err != nil {
				break
			}
		}
		if err != nil {
			failed = errors.Join(failed, fmt.Errorf("checking the events of journal record %s: %w", r.ID, err))
			continue
		}
		tctx := WithPrincipal(context.WithoutCancel(ctx), p.Principal)
		for i, e := range p.Events {
			if outcomes[i] != RecoveryDropped {
				e.Recovered = true
				s.emit(tctx, e)
			}
			if told != nil {
				told(e, outcomes[i])
			}
		}
		done = append(done, r.ID)
	}
	if err := s.store.DeleteJournal(ctx, done); err != nil {
		return 0, errors.Join(failed, wrapStore(err, "deleting recovered journal records"))
	}
	return len(done), failed
}

// tookEffect reads in the store whether e's change was made.
func (s *Service) tookEffect(ctx context.Context, e Event) (RecoveryOutcome, error) {
	switch e.Kind {
	case EventUserSignedUp:
		if e.LicenseID != "" {
			return s.licenseUsedBy(ctx, e)
		}
		// A password sign-up is its account.
		u, err := s.store.AccountByName(ctx, e.AppID, UsernameKey(e.Username))
		if err == nil && u.ID != e.UserID {
			return RecoveryDropped, nil
		}
		return exists(err)
	case EventLicenseActivated:
		return s.licenseUsedBy(ctx, e)
	case EventLoggedIn:
		_, err := s.store.SessionByHash(ctx, e.SessionHash)
		return exists(err)
	case EventLoggedOut:
		_, err := s.store.SessionByHash(ctx, e.SessionHash)
		return gone(err)
	case EventUserBanned:
		_, err := s.store.BanOf(ctx, e.UserID)
		return exists(err)
	case EventUserUnbanned:
		_, err := s.store.BanOf(ctx, e.UserID)
		return gone(err)
	case EventUserDeleted:
		// The tombstone is the deletion's first write.
		deleted, err := s.store.IsUserDeleted(ctx, e.UserID)
		if err != nil || !deleted {
			return RecoveryDropped, err
		}
		return RecoveryTold, nil
	case EventLicensesCreated:
		_, err := s.store.LicenseByID(ctx, e.LicenseID)
		return exists(err)
	case EventLicenseDeleted:
		_, err := s.store.LicenseByID(ctx, e.LicenseID)
		return gone(err)
	case EventAppCreated:
		_, err := s.store.AppByID(ctx, e.AppID)
		return exists(err)
	case EventAppDeleted:
		_, err := s.store.AppByID(ctx, e.AppID)
		return gone(err)
	case EventWebhookCreated:
		_, err := s.store.WebhookByID(ctx, e.Target)
		return exists(err)
	case EventWebhookDeleted:
		_, err := s.store.WebhookByID(ctx, e.Target)
		return gone(err)
	}
	return RecoveryUnchecked, nil
}

// licenseUsedBy: the license of e was used by e's user.
func (s *Service) licenseUsedBy(ctx context.Context, e Event) (RecoveryOutcome, error) {
	use, _, err := s.store.LicenseUseByID(ctx, e.LicenseID)
	if err == nil && use.UserID != e.UserID {
		return RecoveryDropped, nil
	}
	return exists(err)
}

// exists is the outcome of a read that finds what a change wrote.
func exists(err error) (RecoveryOutcome, error) {
	switch {
	case err == nil:
		return RecoveryTold, nil
	case errors.Is(err, ErrNotFound):
		return RecoveryDropped, nil
	}
	return "", err
}

// gone is the outcome of a read that finds what a change deleted.
func gone(err error) (RecoveryOutcome, error) {
	switch {
	case err == nil:
		return RecoveryDropped, nil
	case errors.Is(err, ErrNotFound):
		return RecoveryTold, nil
	}
	return "", err
}
