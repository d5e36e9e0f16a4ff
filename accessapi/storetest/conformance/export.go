package conformance

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
)

// exportClock fixes the header's time, so that two exports of the same
// records are the same bytes.
func exportClock() time.Time { return epoch }

// Export returns the export of s.
func Export(t testing.TB, s access.Store) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := access.NewService(s, access.Config{Now: exportClock}).Export(context.Background(), &buf, nil); err != nil {
		t.Fatalf("export: %v", err)
	}
	return buf.Bytes()
}

// Import imports data into s.
func Import(t testing.TB, s access.Store, data []byte) (access.ExportStats, error) {
	t.Helper()
	return access.NewService(s, access.Config{Now: exportClock}).Import(context.Background(), bytes.NewReader(data))
}

// Populate writes at least one record of every exported type into s: two
// applications, users with every per-user record, a deleted user's
// tombstone, used and unused licenses, a variable, three files (one of
// several chunks, one empty, one encrypted) and the webhook records of
// populateWebhooks.
func Populate(t testing.TB, s access.Store) {
	t.Helper()
	ctx := context.Background()
	for range 2 {
		a := newApp(t, s)
		a.Throttle.AddressFree = 7
		a.MaxSessions = 3
		a.OfflineTokenTTL = 5 * time.Hour
		must(t, s.ReplaceApp(ctx, a))
		k := signingKey(uuid.NewString()[:16], a.ID, 1)
		must(t, s.InsertSigningKey(ctx, k))
		u := &access.User{ID: uuid.NewString(), AppID: a.ID, Username: "Alice", PasswordHash: "$argon2id$hash", CreatedAt: epoch}
		must(t, s.InsertAccount(ctx, u))
		must(t, s.InsertUser(ctx, u))
		must(t, s.InsertBan(ctx, &access.Ban{UserID: u.ID, Reason: "spam", At: epoch}))
		must(t, s.RecordLogin(ctx, &access.LastLogin{UserID: u.ID, IP: "192.0.2.1", At: epoch.Add(time.Minute)}))
		must(t, s.InsertDevice(ctx, &access.Device{UserID: u.ID, AppID: a.ID, Slot: 0, HardwareID: "hw", RegisteredAt: epoch}))
		must(t, s.InsertSession(ctx, &access.Session{TokenHash: uuid.NewString(), AppID: a.ID, UserID: u.ID, HardwareID: "hw",
			CreatedAt: epoch, ExpiresAt: epoch.Add(time.Hour)}))
		must(t, s.AppendActivation(ctx, &access.Activation{ID: uuid.NewString(), AppID: a.ID, UserID: u.ID, Type: access.ActivationGrant,
			OccurredAt: epoch, Minutes: ptr(int64(60)), Note: "welcome"}))
		ls := newLicenses(t, s, a.ID, 600, access.Grant{Minutes: ptr(int64(30))}) // two apps: more than a page
		life := newLicenses(t, s, a.ID, 1, access.Grant{GrantsLifetimeAccess: true})
		must(t, s.RedeemLicense(ctx, redemption(a.ID, ls[0], u, epoch.Add(2*time.Minute))))
		must(t, s.RedeemLicense(ctx, redemption(a.ID, life[0], nil, epoch.Add(3*time.Minute))))
		gone := newUser(t, s, a.ID, "bob")
		must(t, s.MarkUserDeleted(ctx, gone.ID))
		must(t, s.DeleteUser(ctx, gone.ID))
		must(t, s.DeleteAccount(ctx, a.ID, access.UsernameKey("bob")))
		must(t, s.PutVariable(ctx, &access.Variable{AppID: a.ID, Name: "motd", Value: "hello\nworld"}))
		big := make([]byte, 600<<10+13)
		_, _ = rand.Read(big)
		for i, data := range [][]byte{big, nil, []byte("sealed bytes")} {
			sum := sha256.Sum256(data)
			f := &access.File{ID: uuid.NewString(), AppID: a.ID, Name: "f", MimeType: "application/octet-stream",
				IsEncrypted: i == 2, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), CreatedAt: epoch}
			must(t, s.PutFileContents(ctx, f.ID, bytes.NewReader(data)))
			must(t, s.InsertFile(ctx, f))
		}
		populateWebhooks(t, s, a.ID)
	}
}

// PopulatedWebhookRecords are the webhook records Populate writes, by type.
var PopulatedWebhookRecords = access.ExportStats{access.RecordWebhook: 4, access.RecordWebhookDelivery: 12, access.RecordWebhookAttempt: 12}

// populateWebhooks writes an application's endpoints (one in a secret
// rotation's overlap, one disabled, one deleted whose deliveries stay in
// the log) and deliveries in every state, with their attempts: pending and
// never tried, pending after a failed attempt, pending with an attempt
// claimed and not finished, delivered on the second attempt, failed, and
// failed because the endpoint is gone.
func populateWebhooks(t testing.TB, s access.Store, appID string) {
	t.Helper()
	ctx := context.Background()
	sealed := func(what string) []byte { return []byte("sealed " + what + " " + appID) }
	rotated := &access.Webhook{ID: uuid.NewString(), AppID: appID, URL: "https://example.com/hook",
		Events: []access.EventKind{access.EventUserSignedUp, access.EventUserBanned}, SealedSecret: sealed("new"),
		PreviousSealedSecret: sealed("old"), PreviousSecretUntil: epoch.Add(time.Hour), Enabled: true, CreatedAt: epoch}
	disabled := &access.Webhook{ID: uuid.NewString(), AppID: appID, URL: "http://example.net/", Events: []access.EventKind{access.EventLoggedIn},
		SealedSecret: sealed("disabled"), CreatedAt: epoch.Add(time.Second)}
	gone := &access.Webhook{ID: uuid.NewString(), AppID: appID, URL: "https://example.org/", Events: access.WebhookEvents,
		SealedSecret: sealed("gone"), Enabled: true, CreatedAt: epoch}
	for _, w := range []*access.Webhook{rotated, disabled, gone} {
		must(t, s.InsertWebhook(ctx, w))
	}
	must(t, s.DeleteWebhook(ctx, gone.ID))
	at := func(d time.Duration) time.Time { return epoch.Add(d) }
	delivery := func(webhookID string, status access.DeliveryStatus, attempts int, next time.Time, last int, lastErr string) access.WebhookDelivery {
		d := newDelivery(webhookID, epoch)
		d.AppID, d.Status, d.Attempts, d.NextAttemptAt, d.LastStatus, d.LastError = appID, status, attempts, next, last, lastErr
		return d
	}
	failed500 := func(n int, next time.Time) access.DeliveryAttempt {
		return access.DeliveryAttempt{Number: n, ClaimedAt: at(time.Duration(n) * time.Second), Finished: true, StatusCode: 500,
			Error: "HTTP 500", Duration: 40 * time.Millisecond, Outcome: access.DeliveryPending, NextAttemptAt: next}
	}
	type logged struct {
		d  access.WebhookDelivery
		as []access.DeliveryAttempt
	}
	for _, l := range []logged{
		{d: delivery(rotated.ID, access.DeliveryPending, 0, epoch, 0, "")},
		{d: delivery(rotated.ID, access.DeliveryPending, 1, at(6*time.Second), 500, "HTTP 500"),
			as: []access.DeliveryAttempt{failed500(1, at(6*time.Second))}},
		{d: delivery(rotated.ID, access.DeliveryPending, 0, at(time.Minute), 0, ""), // leased: attempt 1 in flight
			as: []access.DeliveryAttempt{{Number: 1, ClaimedAt: at(time.Second)}}},
		{d: delivery(rotated.ID, access.DeliveryDelivered, 2, at(6*time.Second), 204, ""),
			as: []access.DeliveryAttempt{failed500(1, at(6*time.Second)), {Number: 2, ClaimedAt: at(6 * time.Second), Finished: true,
				StatusCode: 204, Duration: 120 * time.Millisecond, Outcome: access.DeliveryDelivered}}},
		{d: delivery(disabled.ID, access.DeliveryFailed, 1, epoch, 410, "HTTP 410"),
			as: []access.DeliveryAttempt{{Number: 1, ClaimedAt: at(time.Second), Finished: true, StatusCode: 410, Error: "HTTP 410",
				Duration: time.Second, Outcome: access.DeliveryFailed}}},
		{d: delivery(gone.ID, access.DeliveryFailed, 1, epoch, 0, "the endpoint was deleted or disabled; not sent"),
			as: []access.DeliveryAttempt{{Number: 1, ClaimedAt: at(time.Second), Finished: true,
				Error: "the endpoint was deleted or disabled; not sent", Outcome: access.DeliveryFailed}}},
	} {
		must(t, insertDelivery(ctx, s, &l.d))
		for _, a := range l.as {
			a.DeliveryID = l.d.ID
			must(t, s.InsertDeliveryAttempt(ctx, &a))
		}
	}
}

// testExportImport round-trips a store through an export into an empty
// store, and checks the refusals of the import.
func testExportImport(t *testing.T, newStore NewStore) {
	src := newStore(t)
	Populate(t, src)
	data := Export(t, src)
	for _, typ := range access.ExportOrder {
		if !bytes.Contains(data, []byte(`{"type":"`+string(typ)+`"`)) {
			t.Fatalf("the export has no %s record", typ)
		}
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines = lines[:len(lines)-1] // after the last newline

	t.Run("ImportIntoEmptyStoreKeepsEveryRecord", func(t *testing.T) {
		dst := newStore(t)
		stats, err := Import(t, dst, data)
		must(t, err)
		if stats[access.RecordLicense] != 1202 {
			t.Fatalf("imported %d licenses, want 1202", stats[access.RecordLicense])
		}
		if again := Export(t, dst); !bytes.Equal(again, data) {
			t.Fatalf("the export of the imported store differs: %d bytes, want %d", len(again), len(data))
		}
		_, err = Import(t, dst, data)
		wantErr(t, err, access.ErrNotEmpty, "import into a non-empty store")
	})

	t.Run("ImportIntoAStoreHoldingOnlyASellerKeyIsRefused", func(t *testing.T) {
		// Seller keys are not exported; a key left in the store would act
		// on the imported application of its app_id.
		dst := newStore(t)
		must(t, dst.InsertSellerKey(context.Background(), &access.SellerKey{ID: "k", AppID: "imported", Name: "shop",
			Scopes: []string{access.ScopeAuditRead}, SecretHash: "s", CreatedAt: epoch}))
		_, err := Import(t, dst, data)
		wantErr(t, err, access.ErrNotEmpty, "import into a store holding a seller key")
	})

	t.Run("ImportedPendingDeliveriesAreNotDueUntilTheImportEnds", func(t *testing.T) {
		testImportHidesDueDeliveries(t, newStore(t), lines[1:len(lines)-1])
	})

	firstOf := func(typ access.RecordType) int {
		for i, l := range lines {
			if strings.HasPrefix(l, `{"type":"`+string(typ)+`"`) {
				return i
			}
		}
		t.Fatalf("the export has no %s record", typ)
		return 0
	}
	delivery, attempt := firstOf(access.RecordWebhookDelivery), firstOf(access.RecordWebhookAttempt)
	badStatus := regexp.MustCompile(`"Status":"[a-z]+"`).ReplaceAllString(lines[delivery], `"Status":"sent"`)
	refusals := []struct {
		name string
		data string
		line int
	}{
		{"DeliveryInAnUnknownStatusStopsThere", strings.Join(lines[:delivery], "") + badStatus + strings.Join(lines[delivery+1:], ""),
			delivery + 1},
		{"AttemptBeforeTheDeliveriesStopsAtTheNextDelivery", strings.Join(lines[:delivery], "") + lines[attempt] +
			strings.Join(lines[delivery:attempt], "") + strings.Join(lines[attempt+1:], ""), delivery + 2},
		{"TruncatedFileStopsAtItsEnd", strings.Join(lines[:len(lines)/2], ""), len(lines)/2 + 1},
		{"TamperedLineFailsTheChecksum", strings.Join(lines[:len(lines)-1], "") +
			strings.Replace(lines[len(lines)-1], `"records":`, `"records":1`, 1), len(lines)},
		{"AlteredValueFailsTheChecksum", strings.Replace(string(data), `"hello\nworld"`, `"hellO\nworld"`, 1), len(lines)},
		{"DuplicateRecordStopsThere", strings.Join(lines[:2], "") + lines[1] + strings.Join(lines[2:], ""), 3},
		{"BrokenLineStopsThere", strings.Join(lines[:3], "") + "{not json\n" + strings.Join(lines[3:], ""), 4},
		{"UnknownTypeStopsThere", strings.Join(lines[:2], "") + `{"type":"gadget"}` + "\n" + strings.Join(lines[2:], ""), 3},
	}
	for _, tc := range refusals {
		t.Run("Import_"+tc.name+"_NothingVisible", func(t *testing.T) {
			dst := newStore(t)
			_, err := Import(t, dst, []byte(tc.data))
			var ie *access.ImportError
			if !errors.As(err, &ie) {
				t.Fatalf("import error %v, want an ImportError", err)
			}
			if ie.Line != tc.line {
				t.Fatalf("stopped at line %d (%v), want %d", ie.Line, err, tc.line)
			}
			apps, err := dst.Apps(context.Background())
			must(t, err)
			if got := Export(t, dst); len(apps) != 0 || bytes.Count(got, []byte("\n")) != 2 {
				t.Fatalf("after a refused import the store holds %d lines of records", bytes.Count(got, []byte("\n"))-2)
			}
		})
	}
}

// testImportHidesDueDeliveries imports lines (records without the header
// and end) straight through the store's Importer and checks, once every
// webhook record is written and before the applications are, that no
// dispatcher would find a delivery due: one could send it, or claim an
// attempt, before the import is complete (or removed after failing).
func testImportHidesDueDeliveries(t *testing.T, s access.Store, lines []string) {
	ctx := context.Background()
	im, ok := s.(access.Importer)
	if !ok {
		t.Fatalf("%T is no access.Importer", s)
	}
	later := epoch.Add(48 * time.Hour) // every pending delivery is due
	checked := false
	err := im.Import(ctx, func() (*access.Record, error) {
		if len(lines) == 0 {
			return nil, io.EOF
		}
		var r access.Record
		must(t, json.Unmarshal([]byte(lines[0]), &r))
		lines = lines[1:]
		if r.Type == access.RecordApp && !checked {
			checked = true
			due, err := s.DueDeliveries(ctx, later, 100)
			must(t, err)
			if len(due) != 0 {
				t.Errorf("during the import %d deliveries are due, want none", len(due))
			}
		}
		return &r, nil
	})
	must(t, err)
	due, err := s.DueDeliveries(ctx, later, 100)
	must(t, err)
	if !checked || len(due) != 6 {
		t.Fatalf("after the import %d deliveries are due (checked during it: %t), want Populate's 6 pending", len(due), checked)
	}
}
