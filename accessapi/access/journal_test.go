package access_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// journaled is an instance with the listeners that persist events: the
// change feed's writer, the audit log and the webhook outbox, over a real
// store.
type journaled struct {
	svc     *access.Service
	sweeper *access.JournalSweeper
}

// dies is a listener that, first of all, ends the goroutine of the use case
// that tells it: the process died after the change was stored and before
// any listener ran.
func dies(context.Context, access.Event) error { runtime.Goexit(); return nil }

func newJournaled(t *testing.T, store access.Store, first ...access.EventListener) *journaled {
	t.Helper()
	tail := access.NewFeedTailer(store, access.FeedConfig{})
	outbox := access.NewWebhookOutbox(store, access.WebhookOutboxConfig{})
	listeners := append(first, tail.Record, access.NewAuditListener(store, func(err error) { t.Errorf("audit: %v", err) }), outbox.Listen)
	return &journaled{
		svc: access.NewService(store, access.Config{Argon2: cheapArgon2, Listeners: listeners, Subscribed: outbox.Subscribed}),
		// Every record is old enough for the test's sweeps (see settle).
		sweeper: access.NewJournalSweeper(access.JournalSweeperConfig{Grace: time.Nanosecond}),
	}
}

// settle lets the clock pass the millisecond of the last journal record,
// so that a sweep with a grace of 1 ns finds it.
func settle() { time.Sleep(2 * time.Millisecond) }

// untilItDies runs a use case on a goroutine that may end without
// returning (runtime.Goexit, as dies does).
func untilItDies(useCase func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		useCase()
	}()
	<-done
}

// scene is an application with one endpoint for every webhook event, a
// user and an unused license code.
type scene struct {
	app     *access.NewApp
	hook    string
	user    *access.UserView
	license string
}

func newScene(t *testing.T, svc *access.Service) *scene {
	t.Helper()
	ctx := context.Background()
	app, err := svc.CreateApp(ctx, access.AppSettings{Name: ptr("journal")})
	if err != nil {
		t.Fatal(err)
	}
	url := "https://example.com/hook"
	hook, err := svc.CreateWebhook(ctx, app.ID, access.WebhookSettings{URL: &url, Events: access.WebhookEvents})
	if err != nil {
		t.Fatal(err)
	}
	user, err := svc.SignUp(ctx, &app.App, access.SignUpRequest{Username: "alice", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := svc.CreateLicenses(ctx, app.ID, access.LicenseRequest{Count: 1, Grant: minutesGrant(60)})
	if err != nil {
		t.Fatal(err)
	}
	// The records of the scene's own events go now, not in 100 ms.
	if err := svc.ClearJournal(ctx); err != nil {
		t.Fatal(err)
	}
	return &scene{app: app, hook: hook.ID, user: user, license: ls[0].Code}
}

// effects counts what the listeners wrote of kind about the scene: webhook
// deliveries, audit entries (and how many are marked recovered) and change
// feed entries.
type effects struct{ deliveries, audit, recovered, feed int }

func (e effects) minus(o effects) effects {
	return effects{e.deliveries - o.deliveries, e.audit - o.audit, e.recovered - o.recovered, e.feed - o.feed}
}

// allEffects counts the effects of every kind of a case.
func allEffects(t *testing.T, store access.Store, sc *scene, tc crashCase) map[access.EventKind]effects {
	t.Helper()
	m := map[access.EventKind]effects{}
	for kind := range tc.want {
		m[kind] = countEffects(t, store, sc, kind)
	}
	return m
}

// newEffects are the effects of each kind of a case since base.
func newEffects(t *testing.T, store access.Store, sc *scene, tc crashCase, base map[access.EventKind]effects) map[access.EventKind]effects {
	t.Helper()
	m := allEffects(t, store, sc, tc)
	for kind := range m {
		m[kind] = m[kind].minus(base[kind])
	}
	return m
}

func countEffects(t *testing.T, store access.Store, sc *scene, kind access.EventKind) effects {
	t.Helper()
	ctx := context.Background()
	var n effects
	ds, err := store.Deliveries(ctx, sc.hook, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Event == kind {
			n.deliveries++
		}
	}
	entries, err := store.AuditLog(ctx, sc.app.ID, access.AuditFilter{Action: string(kind)}, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n.audit++
		if strings.Contains(string(e.After), `"recovered":true`) {
			n.recovered++
		}
	}
	cs, err := store.ChangesAfter(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Kind == kind && c.AppID == sc.app.ID {
			n.feed++
		}
	}
	return n
}

func journalLeft(t *testing.T, store access.Store) int {
	t.Helper()
	recs, err := store.JournalBefore(context.Background(), time.Now().Add(time.Hour), 1000)
	if err != nil {
		t.Fatal(err)
	}
	return len(recs)
}

// crashCase is a use case that a crash interrupts, and what its events
// leave once a restarted instance swept the journal.
type crashCase struct {
	name string
	run  func(svc *access.Service, sc *scene)
	// kinds and what each must show after the sweep.
	want map[access.EventKind]effects
}

// changeCases are the use cases the crash tests interrupt. A ban and a
// user deletion are a webhook, an audit entry and a change-feed entry; a
// license sign-up is two webhooks and a password sign-up one (sign-ups are
// client traffic, not audited, and a new user is no feed entry).
func changeCases() []crashCase {
	ctx := context.Background()
	return []crashCase{
		{"Ban", func(svc *access.Service, sc *scene) { _ = svc.BanUser(ctx, sc.app.ID, sc.user.ID, "chargeback") },
			map[access.EventKind]effects{access.EventUserBanned: {deliveries: 1, audit: 1, recovered: 1, feed: 1}}},
		{"LicenseSignUp", func(svc *access.Service, sc *scene) { _, _ = svc.SignUpWithLicense(ctx, &sc.app.App, sc.license, "") },
			map[access.EventKind]effects{access.EventUserSignedUp: {deliveries: 1}, access.EventLicenseActivated: {deliveries: 1}}},
		{"PasswordSignUp", func(svc *access.Service, sc *scene) {
			_, _ = svc.SignUp(ctx, &sc.app.App, access.SignUpRequest{Username: "bob", Password: "correct horse battery"})
		}, map[access.EventKind]effects{access.EventUserSignedUp: {deliveries: 1}}},
		{"UserDeletion", func(svc *access.Service, sc *scene) { _ = svc.DeleteUser(ctx, sc.app.ID, sc.user.ID) },
			map[access.EventKind]effects{access.EventUserDeleted: {deliveries: 1, audit: 1, recovered: 1, feed: 1}}},
	}
}

// opener opens a new, empty real store.
type opener func(testing.TB) access.Store

// forEachCase runs test for every change case on each store: SQLite, and
// MongoDB (FerretDB, with no transactions) — one code path for both.
func forEachCase(t *testing.T, test func(t *testing.T, open opener, tc crashCase)) {
	for _, st := range []struct {
		name string
		open opener
	}{
		{"sqlite", func(t testing.TB) access.Store { return storetest.SQLite(t) }},
		{"mongodb", func(t testing.TB) access.Store { return storetest.Mongo(t) }},
	} {
		for _, tc := range changeCases() {
			t.Run(st.name+"/"+tc.name, func(t *testing.T) { test(t, st.open, tc) })
		}
	}
}

// crashed is a scene on a real store and a case that ran on an
// instance that died.
type crashed struct {
	store access.Store
	sc    *scene
	tc    crashCase
	base  map[access.EventKind]effects
}

// crash sets the scene, then runs tc on the instance dying makes over the
// store, until its goroutine ends (none: no case runs).
func crash(t *testing.T, open opener, tc crashCase, dying func(access.Store) *journaled) *crashed {
	t.Helper()
	store := open(t)
	c := &crashed{store: store, sc: newScene(t, newJournaled(t, store).svc), tc: tc}
	c.base = allEffects(t, store, c.sc, tc)
	if dying != nil {
		untilItDies(func() { tc.run(dying(store).svc, c.sc) })
	}
	return c
}

// effects are the case's effects since the scene was set.
func (c *crashed) effects(t *testing.T) map[access.EventKind]effects {
	t.Helper()
	return newEffects(t, c.store, c.sc, c.tc, c.base)
}

// wantOnce checks that each delivery and audit entry of the case was
// written once (the change feed may take an entry twice: an extra
// eviction).
func (c *crashed) wantOnce(t *testing.T, after string) {
	t.Helper()
	for kind, got := range c.effects(t) {
		want := c.tc.want[kind]
		if got.deliveries != want.deliveries || got.audit != want.audit || (want.feed > 0) != (got.feed > 0) {
			t.Errorf("%s after %s: %+v, want %d deliveries, %d audit entries, %d feed entries", kind, after, got, want.deliveries, want.audit, want.feed)
		}
	}
}

// TestJournal_ACrashBetweenTheChangeAndItsListenersIsRecoveredOnceByTheNextInstance
// stops a use case after its change is stored and before any listener ran
// (the process died): nothing of its events is written. A restarted
// instance on the same store sweeps the journal: the webhook deliveries,
// the audit entry (marked recovered) and the change-feed entry appear,
// each once, and a second sweep adds nothing.
func TestJournal_ACrashBetweenTheChangeAndItsListenersIsRecoveredOnceByTheNextInstance(t *testing.T) {
	forEachCase(t, func(t *testing.T, open opener, tc crashCase) {
		c := crash(t, open, tc, func(store access.Store) *journaled { return newJournaled(t, store, dies) })
		for kind, got := range c.effects(t) {
			if got != (effects{}) {
				t.Fatalf("%s before the restart: %+v, want nothing (no listener ran)", kind, got)
			}
		}
		restarted := newJournaled(t, c.store)
		settle()
		for range 2 {
			if err := restarted.sweeper.Sweep(context.Background(), restarted.svc); err != nil {
				t.Fatal(err)
			}
		}
		got := c.effects(t)
		for kind, want := range tc.want {
			if got := got[kind]; got != want {
				t.Errorf("%s after the restart's sweeps: %+v, want %+v", kind, got, want)
			}
		}
		if n := journalLeft(t, c.store); n != 0 {
			t.Errorf("%d journal records left after the sweep", n)
		}
	})
}

// diesBefore is the real store whose write of the change ends the use
// case's goroutine before anything is written: the process died after the
// journal record and before the change.
type diesBefore struct{ access.Store }

func (diesBefore) InsertBan(context.Context, *access.Ban) error { runtime.Goexit(); return nil }
func (diesBefore) RedeemLicense(context.Context, *access.Redemption) error {
	runtime.Goexit()
	return nil
}
func (diesBefore) InsertLicenseUse(context.Context, *access.LicenseUse, access.Grant) error {
	runtime.Goexit()
	return nil
}
func (diesBefore) InsertAccount(context.Context, *access.User) error { runtime.Goexit(); return nil }
func (diesBefore) MarkUserDeleted(context.Context, string) error     { runtime.Goexit(); return nil }

// TestJournal_ACrashBeforeTheChangeTellsNothing stops a use case after its
// journal record and before its change: the restarted instance's sweep
// finds that the change was not made and writes no webhook, no audit entry
// and no feed entry, and drops the record.
func TestJournal_ACrashBeforeTheChangeTellsNothing(t *testing.T) {
	forEachCase(t, func(t *testing.T, open opener, tc crashCase) {
		c := crash(t, open, tc, func(store access.Store) *journaled { return newJournaled(t, diesBefore{store}) })
		if n := journalLeft(t, c.store); n != 1 {
			t.Fatalf("%d journal records before the restart, want the crashed use case's 1", n)
		}
		restarted := newJournaled(t, c.store)
		var dropped []access.EventKind
		sweeper := access.NewJournalSweeper(access.JournalSweeperConfig{Grace: time.Nanosecond,
			OnRecovered: func(e access.Event, o access.RecoveryOutcome) {
				if o == access.RecoveryDropped {
					dropped = append(dropped, e.Kind)
				}
			}})
		settle()
		if err := sweeper.Sweep(context.Background(), restarted.svc); err != nil {
			t.Fatal(err)
		}
		for kind, got := range c.effects(t) {
			if got != (effects{}) {
				t.Errorf("%s of a change that was not made: %+v, want nothing", kind, got)
			}
		}
		if len(dropped) != len(tc.want) {
			t.Errorf("dropped %v, want the %d events of the change", dropped, len(tc.want))
		}
		if n := journalLeft(t, c.store); n != 0 {
			t.Errorf("%d journal records left after the sweep", n)
		}
	})
}

// TestJournal_TwoInstancesRecoveringOneRecordAtOnceWriteEachEffectOnce
// crashes the use cases, then two restarted instances recover at the same
// time: each webhook delivery and audit entry is written once (their IDs
// derive from the event's).
func TestJournal_TwoInstancesRecoveringOneRecordAtOnceWriteEachEffectOnce(t *testing.T) {
	forEachCase(t, func(t *testing.T, open opener, tc crashCase) {
		c := crash(t, open, tc, func(store access.Store) *journaled { return newJournaled(t, store, dies) })
		var wg sync.WaitGroup
		for _, in := range []*journaled{newJournaled(t, c.store), newJournaled(t, c.store)} {
			wg.Go(func() {
				if _, err := in.svc.RecoverJournal(context.Background(), time.Now().Add(time.Hour), 10, nil); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		c.wantOnce(t, "two concurrent recoveries")
	})
}

// TestJournal_AReplayedRecordWritesNothingTwice tells the listeners of a
// use case in full, then recovers its record as if the instance had died
// before deleting it: no delivery and no audit entry is written twice.
func TestJournal_AReplayedRecordWritesNothingTwice(t *testing.T) {
	forEachCase(t, func(t *testing.T, open opener, tc crashCase) {
		c := crash(t, open, tc, nil)
		// No ClearJournal: the records stay, as after a crash right
		// after the listeners ran (the batch delete is 100 ms later).
		svc := newJournaled(t, c.store).svc
		tc.run(svc, c.sc)
		c.wantOnce(t, "the use case")
		if _, err := svc.RecoverJournal(context.Background(), time.Now().Add(time.Hour), 100, nil); err != nil {
			t.Fatal(err)
		}
		c.wantOnce(t, "a replay of its told events")
	})
}

// failsWith is the real store whose ban write fails with err.
type failsWith struct {
	access.Store
	err error
}

func (f failsWith) InsertBan(context.Context, *access.Ban) error { return f.err }

// TestJournal_AFailedChangeLetsItsRecordGoOnlyWhenTheFailureIsDefinite: a
// refusal (the change was not made) deletes the record at once; an error
// that leaves the change unknown (the store unreachable) keeps it for the
// recovery.
func TestJournal_AFailedChangeLetsItsRecordGoOnlyWhenTheFailureIsDefinite(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		left int
	}{
		{"NotFoundIsDefinite", access.ErrNotFound, 0},
		{"UnreachableStoreIsNot", errors.New("connection refused"), 1},
		{"DeadlineIsNot", context.DeadlineExceeded, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := storetest.SQLite(t)
			sc := newScene(t, newJournaled(t, store).svc)
			svc := newJournaled(t, failsWith{store, tc.err}).svc
			if err := svc.BanUser(context.Background(), sc.app.ID, sc.user.ID, ""); err == nil {
				t.Fatal("the ban succeeded")
			}
			if err := svc.ClearJournal(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := journalLeft(t, store); n != tc.left {
				t.Fatalf("%d journal records left, want %d", n, tc.left)
			}
		})
	}
}

// TestJournal_ToldEventsLeaveNoRecord: once the listeners were told, the
// record is deleted (in a batch).
func TestJournal_ToldEventsLeaveNoRecord(t *testing.T) {
	store := storetest.SQLite(t)
	in := newJournaled(t, store)
	sc := newScene(t, in.svc)
	for _, tc := range changeCases() {
		tc.run(in.svc, sc)
	}
	waitFor(t, "the journal records deleted", 5*time.Second, func() bool { return journalLeft(t, store) == 0 })
}

// TestJournal_AnEventOnlyWebhooksPersistIsJournaledOnlyWhenAnEndpointSubscribes:
// a login and a license sign-up, which only the webhook outbox persists,
// write no journal record in an application without an endpoint for them,
// and one once an endpoint subscribes; a ban (audited, in the change feed)
// always writes one.
func TestJournal_AnEventOnlyWebhooksPersistIsJournaledOnlyWhenAnEndpointSubscribes(t *testing.T) {
	ctx := context.Background()
	store := newCountingStore(storetest.SQLite(t))
	in := newJournaled(t, store)
	app, err := in.svc.CreateApp(ctx, access.AppSettings{Name: ptr("quiet")})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: store, svc: in.svc, app: &app.App}
	codes := []string{f.license(t, minutesGrant(60)), f.license(t, minutesGrant(60))}
	journalWrites := func() int {
		n := 0
		for _, call := range store.take() {
			if call == "InsertJournal" {
				n++
			}
		}
		return n
	}
	url := "https://example.com/hook"
	steps := []struct {
		name string
		do   func() error
		want int
	}{
		{"license sign-up, no endpoint", func() error { _, err := in.svc.SignUpWithLicense(ctx, &app.App, codes[0], ""); return err }, 0},
		{"login, no endpoint", func() error {
			_, err := in.svc.Login(ctx, &app.App, access.LoginRequest{Credentials: access.Credentials{Code: codes[0]}})
			return err
		}, 0},
		{"an endpoint for logins", func() error {
			_, err := in.svc.CreateWebhook(ctx, app.ID, access.WebhookSettings{URL: &url, Events: []access.EventKind{access.EventLoggedIn}})
			return err
		}, 1},
		{"license sign-up, no endpoint for it", func() error { _, err := in.svc.SignUpWithLicense(ctx, &app.App, codes[1], ""); return err }, 0},
		{"login, an endpoint subscribes", func() error {
			_, err := in.svc.Login(ctx, &app.App, access.LoginRequest{Credentials: access.Credentials{Code: codes[0]}})
			return err
		}, 1},
		{"ban", func() error { return in.svc.BanUser(ctx, app.ID, codeUserID(t, in.svc, &app.App, codes[1]), "") }, 1},
	}
	store.take()
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := journalWrites(); got != st.want {
			t.Errorf("%s: %d journal records written, want %d", st.name, got, st.want)
		}
	}
}

// TestEventRecordID_IsAUUIDv7OfTheEventsTimeTheSameOnEveryReplay: a
// listener's record of a journaled event has one id however often the
// event is told, another for another endpoint or event, and the id is a
// UUIDv7 whose time is the event's (listings still sort by time).
func TestEventRecordID_IsAUUIDv7OfTheEventsTimeTheSameOnEveryReplay(t *testing.T) {
	at := time.Date(2026, 11, 23, 7, 30, 0, 123_000_000, time.UTC)
	e := access.Event{ID: "0193a1b2-0000-7000-8000-000000000000.0", Kind: access.EventUserBanned, At: at}
	id := access.EventRecordID(e, "endpoint-1")
	for name, other := range map[string]string{
		"another endpoint": access.EventRecordID(e, "endpoint-2"),
		"the audit entry":  access.EventRecordID(e, "audit"),
		"another event":    access.EventRecordID(access.Event{ID: e.ID[:len(e.ID)-1] + "1", At: at}, "endpoint-1"),
	} {
		if other == id {
			t.Errorf("%s has the same id %s", name, id)
		}
	}
	if again := access.EventRecordID(e, "endpoint-1"); again != id {
		t.Fatalf("a replay's id %s, want %s", again, id)
	}
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
		t.Fatalf("id %s is not a UUIDv7 (%v)", id, err)
	}
	if sec, nsec := u.Time().UnixTime(); time.Unix(sec, nsec).UTC().UnixMilli() != at.UnixMilli() {
		t.Fatalf("id %s has the time %v, want %v", id, time.Unix(sec, nsec).UTC(), at)
	}
	if access.AuditIDAt(at) > id || access.AuditIDAt(at.Add(time.Millisecond)) <= id {
		t.Fatalf("id %s does not sort within its millisecond", id)
	}
	if unjournaled := (access.Event{At: at}); access.EventRecordID(unjournaled, "x") == access.EventRecordID(unjournaled, "x") {
		t.Fatal("an event without an id gets the same record id twice, want a random one")
	}
}

// deliveriesFailOnce is a store whose first delivery insert fails (the
// store went away for a moment).
type deliveriesFailOnce struct {
	access.Store
	failed atomic.Bool
}

func (s *deliveriesFailOnce) InsertDeliveries(ctx context.Context, ds []access.WebhookDelivery) error {
	if s.failed.CompareAndSwap(false, true) {
		return errors.New("connection reset")
	}
	return s.Store.InsertDeliveries(ctx, ds)
}

// TestJournal_AListenerThatCouldNotWriteKeepsTheRecordForRecovery: when the
// outbox cannot write a ban's delivery, the ban's journal record stays, and
// the next sweep writes the delivery, once, while the audit and feed
// entries written the first time are not doubled.
func TestJournal_AListenerThatCouldNotWriteKeepsTheRecordForRecovery(t *testing.T) {
	store := storetest.SQLite(t)
	ctx := context.Background()
	sc := newScene(t, newJournaled(t, store).svc)
	flaky := &deliveriesFailOnce{Store: store}
	tail := access.NewFeedTailer(store, access.FeedConfig{})
	outbox := access.NewWebhookOutbox(flaky, access.WebhookOutboxConfig{})
	svc := access.NewService(store, access.Config{Argon2: cheapArgon2, Subscribed: outbox.Subscribed,
		Listeners: []access.EventListener{tail.Record, access.NewAuditListener(store, nil), outbox.Listen}})
	if err := svc.BanUser(ctx, sc.app.ID, sc.user.ID, "chargeback"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // past the clearer's batch
	if n := journalLeft(t, store); n != 1 {
		t.Fatalf("%d journal records after a failed delivery write, want the ban's", n)
	}
	if got := countEffects(t, store, sc, access.EventUserBanned); got.deliveries != 0 || got.audit != 1 || got.feed != 1 {
		t.Fatalf("before recovery: %+v", got)
	}
	if _, err := svc.RecoverJournal(ctx, time.Now().Add(time.Hour), 10, nil); err != nil {
		t.Fatal(err)
	}
	if got := countEffects(t, store, sc, access.EventUserBanned); got.deliveries != 1 || got.audit != 1 {
		t.Fatalf("after recovery: %+v, want the delivery once and the audit entry once", got)
	}
	if n := journalLeft(t, store); n != 0 {
		t.Fatalf("%d journal records after recovery", n)
	}
}

// TestJournal_ARecoveredChangeTheStoreCannotConfirmIsAuditedAsUnconfirmed:
// a secret rotation has no check in the store, so its recovered audit
// entry says that its outcome is not known.
func TestJournal_ARecoveredChangeTheStoreCannotConfirmIsAuditedAsUnconfirmed(t *testing.T) {
	store := storetest.SQLite(t)
	ctx := context.Background()
	sc := newScene(t, newJournaled(t, store).svc)
	untilItDies(func() { _, _ = newJournaled(t, store, dies).svc.RotateSecret(ctx, sc.app.ID) })
	if _, err := newJournaled(t, store).svc.RecoverJournal(ctx, time.Now().Add(time.Hour), 10, nil); err != nil {
		t.Fatal(err)
	}
	p, err := newJournaled(t, store).svc.AuditLog(ctx, sc.app.ID, access.AuditFilter{Action: string(access.EventSecretRotated)}, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 1 || string(p.Items[0].After) != `{"confirmed":false,"recovered":true}` {
		t.Fatalf("recovered rotation entries %+v", p.Items)
	}
}

// TestJournal_ARedemptionCutShortAndFinishedByARetryIsDeliveredOnce: on a
// store without transactions, a license sign-up stops after its claim
// (the store failed: its journal record stays). A retry of the code finds
// the claim and finishes the redemption, telling the activation; later
// the journal's recovery tells the first request's. The receiver gets one
// license.activated: both name the license, so they are one delivery.
func TestJournal_ARedemptionCutShortAndFinishedByARetryIsDeliveredOnce(t *testing.T) {
	for _, st := range []struct {
		name string
		open opener
	}{
		{"sqlite", func(t testing.TB) access.Store { return storetest.SQLite(t) }},
		{"mongodb", func(t testing.TB) access.Store { return storetest.Mongo(t) }},
	} {
		t.Run(st.name, func(t *testing.T) {
			store := st.open(t)
			ctx := context.Background()
			sc := newScene(t, newJournaled(t, store).svc)
			// The claim is write 1; the crash comes before write 2.
			cut := newJournaled(t, &crashingStore{Store: store, n: 2})
			if _, err := cut.svc.SignUpWithLicense(ctx, &sc.app.App, sc.license, ""); !errors.Is(err, errCrash) {
				t.Fatalf("first sign-up: %v, want the injected crash after the claim", err)
			}
			retry := newJournaled(t, store)
			if _, err := retry.svc.SignUpWithLicense(ctx, &sc.app.App, sc.license, ""); access.CodeOf(err) != access.CodeLicenseUsed {
				t.Fatalf("retry: %v, want license_used", err)
			}
			if got := countEffects(t, store, sc, access.EventLicenseActivated); got.deliveries != 1 {
				t.Fatalf("after the retry finished the redemption: %d deliveries, want 1", got.deliveries)
			}
			settle()
			if err := retry.sweeper.Sweep(ctx, retry.svc); err != nil {
				t.Fatal(err)
			}
			if got := countEffects(t, store, sc, access.EventLicenseActivated); got.deliveries != 1 {
				t.Errorf("after the recovery of the first request: %d deliveries of license.activated, want 1", got.deliveries)
			}
			if n := journalLeft(t, store); n != 0 {
				t.Errorf("%d journal records left after the sweep", n)
			}
		})
	}
}
