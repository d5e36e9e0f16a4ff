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
		outcomes, err := s.outcomes(ctx, r.ID, p.Events)
		if err != nil {
			failed = errors.Join(failed, fmt.Errorf("checking the events of journal record %s: %w", r.ID, err))
			continue
		}
		tctx := WithPrincipal(context.WithoutCancel(ctx), p.Principal)
		listenerFailed := false
		for i, e := range p.Events {
			if outcomes[i] != RecoveryDropped {
				e.Recovered, e.Unconfirmed = true, outcomes[i] == RecoveryUnchecked
				if s.emit(tctx, e) {
					listenerFailed = true
				}
			}
			if told != nil {
				told(e, outcomes[i])
			}
		}
		if listenerFailed {
			// Kept for the next sweep: a listener could not write.
			failed = errors.Join(failed, fmt.Errorf("a listener could not write an event of journal record %s", r.ID))
			continue
		}
		done = append(done, r.ID)
	}
	if err := s.store.DeleteJournal(ctx, done); err != nil {
		return 0, errors.Join(failed, wrapStore(err, "deleting recovered journal records"))
	}
	return len(done), failed
}

// outcomes gives the events of journal record recordID their IDs and
// checks whether each one's change was made.
func (s *Service) outcomes(ctx context.Context, recordID string, evs []Event) ([]RecoveryOutcome, error) {
	out := make([]RecoveryOutcome, len(evs))
	for i := range evs {
		evs[i].ID = eventID(recordID, i)
		var err error
		if out[i], err = s.tookEffect(ctx, evs[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// tookEffect reads in the store whether e's change was made.
func (s *Service) tookEffect(ctx context.Context, e Event) (RecoveryOutcome, error) {
	c, ok := changeChecks[e.Kind]
	if !ok {
		return RecoveryUnchecked, nil
	}
	err := c.read(ctx, s.store, e)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return "", err
	}
	if (err == nil) != c.deletes {
		return RecoveryTold, nil
	}
	return RecoveryDropped, nil
}

// changeCheck reads what a change of one kind writes (or, when deletes,
// deletes): ErrNotFound when it is not there.
type changeCheck struct {
	read    func(ctx context.Context, st Store, e Event) error
	deletes bool
}

// changeChecks are the kinds whose change a cheap read confirms; the
// others are replayed unchecked.
var changeChecks = map[EventKind]changeCheck{
	EventUserSignedUp:     {read: signedUp},
	EventLicenseActivated: {read: licenseUsedBy},
	EventLoggedIn:         {read: sessionOf},
	EventLoggedOut:        {read: sessionOf, deletes: true},
	EventUserBanned:       {read: banOf},
	EventUserUnbanned:     {read: banOf, deletes: true},
	EventUserDeleted:      {read: tombstoneOf},
	EventLicensesCreated:  {read: licenseOf},
	EventLicenseDeleted:   {read: licenseOf, deletes: true},
	EventAppCreated:       {read: appOf},
	EventAppDeleted:       {read: appOf, deletes: true},
	EventWebhookCreated:   {read: webhookOf},
	EventWebhookDeleted:   {read: webhookOf, deletes: true},
}

// signedUp finds a license sign-up's use of the license, or a password
// sign-up's account (its first write).
func signedUp(ctx context.Context, st Store, e Event) error {
	if e.LicenseID != "" {
		return licenseUsedBy(ctx, st, e)
	}
	u, err := st.AccountByName(ctx, e.AppID, UsernameKey(e.Username))
	if err == nil && u.ID != e.UserID {
		return ErrNotFound // another user's account of that name
	}
	return err
}

// licenseUsedBy finds the use of e's license by e's user.
func licenseUsedBy(ctx context.Context, st Store, e Event) error {
	use, _, err := st.LicenseUseByID(ctx, e.LicenseID)
	if err == nil && use.UserID != e.UserID {
		return ErrNotFound // used by another user
	}
	return err
}

// tombstoneOf finds a deleted user's tombstone (the deletion's first write).
func tombstoneOf(ctx context.Context, st Store, e Event) error {
	deleted, err := st.IsUserDeleted(ctx, e.UserID)
	if err == nil && !deleted {
		return ErrNotFound
	}
	return err
}

// found is the error of a read, whatever it read.
func found[T any](_ T, err error) error { return err }

func sessionOf(ctx context.Context, st Store, e Event) error {
	return found(st.SessionByHash(ctx, e.SessionHash))
}
func banOf(ctx context.Context, st Store, e Event) error { return found(st.BanOf(ctx, e.UserID)) }
func licenseOf(ctx context.Context, st Store, e Event) error {
	return found(st.LicenseByID(ctx, e.LicenseID))
}
func appOf(ctx context.Context, st Store, e Event) error { return found(st.AppByID(ctx, e.AppID)) }
func webhookOf(ctx context.Context, st Store, e Event) error {
	return found(st.WebhookByID(ctx, e.Target))
}
