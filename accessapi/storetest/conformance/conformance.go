// Package conformance is one test suite that every access.Store
// implementation runs: the contracts of access/store.go, the concurrency
// claims, pagination and counts. Only tests import it.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appaccess/appaccess/accessapi/access"
)

// NewStore returns a new, empty store for one test.
type NewStore func(t testing.TB) access.Store

// Run runs the suite against stores made by newStore.
func Run(t *testing.T, newStore NewStore) {
	tests := []struct {
		name string
		run  func(t *testing.T, s access.Store)
	}{
		{"Apps_TakenIDOrKeyIsDuplicateMissingIsNotFound", testApps},
		{"Accounts_TakenUsernameKeyIsDuplicate", testAccounts},
		{"Users_PrefixPagesVisitEveryUserOnce", testUsersPaging},
		{"Bans_AndLastLogins_OnePerUser", testBansAndLogins},
		{"Licenses_TakenIDIsDuplicateMissingIsNotFound", testLicenses},
		{"Licenses_PagesAllUsedUnusedVisitEveryLicenseOnce", testLicensePaging},
		{"RedeemLicense_SixteenConcurrentClaimsOneWinner", testRedeemRace},
		{"RedeemLicense_SignUpWritesUseUserAndLedger", testRedeemSignUp},
		{"InsertAccount_SixteenConcurrentSameNameOneWinner", testAccountRace},
		{"InsertDevice_SixteenConcurrentSameSlotOneWinner", testDeviceRace},
		{"AppendActivation_SixteenConcurrentAppendsAllKept", testLedgerRace},
		{"Activations_PagesVisitEveryEntryOnce", testActivationPaging},
		{"Sessions_ByHashAndExpiry", testSessions},
		{"AppCounts_CountLicensesUsersAndActiveMembers", testCounts},
		{"ActivityByDay_CountsSignUpsAndActivationsPerUTCDay", testActivityByDay},
		{"Files_ContentsReadFromAnyOffset", testFiles},
		{"Variables_LastWriteWins", testVariables},
		{"Apps_SecuritySettingsSurviveAReplace", testAppSecuritySettings},
		{"SetAccountPassword_ReplacesTheHash", testAccountPassword},
		{"AdminFactorWrites_NeverUndoEachOtherNorReachARecreatedAdmin", testAdminFactorWrites},
		{"UpgradeAccountPassword_ReplacesOnlyTheHashItWasGiven", testAccountPasswordUpgrade},
		{"UserSessions_OldestFirst", testUserSessions},
		{"Attempts_CountedPerKeyClearedAndPruned", testAttempts},
		{"KnownSources_AreNotInheritedByTheNextUserOfADeletedUsersName", testKnownSourcesOfADeletedUser},
		{"AuditLog_TakenIDIsDuplicateEntriesKeptWhole", testAuditEntries},
		{"AuditLog_FilteredPagesVisitEveryMatchOnce", testAuditPaging},
		{"AuditLog_DeleteBeforeKeepsNewerEntries", testAuditPruning},
		{"Admins_TakenUsernameIsDuplicateTOTPStepAcceptedOnce", testAdmins},
		{"AdminSessions_ByHashDeletedPerAdmin", testAdminSessions},
		{"SellerKeys_ByHashPerAppLastUseRevoke", testSellerKeys},
		{"DeleteApp_DeletesItsSellerKeysOnly", testSellerKeysGoWithTheirApp},
		{"ChangeFeed_SixteenConcurrentAppendsGetOneGapFreeSequence", testFeedRace},
		{"ChangeFeed_PruningKeepsTheNewestSoTheSequenceGoesOn", testFeedPrune},
		{"UserState_ReadsUserBanAndLedgerInOneCall", testUserState},
		{"Webhooks_TakenIDIsDuplicateReplacedDeletedListedPerApp", testWebhooks},
		{"WebhookRotation_WrittenOnlyOverTheSecretItReplacesSettingsKeepThem", testWebhookRotation},
		{"Deliveries_NewestFirstPagesDueByTimeConditionalUpdate", testDeliveries},
		{"Deliveries_ABatchIsWrittenWholeATakenIDIsDuplicate", testDeliveryBatch},
		{"DeliveryAttempts_SixteenConcurrentClaimsOneWinner", testAttemptRace},
		{"Deliveries_DeleteBeforeTakesTheirAttempts", testDeliveryPruning},
		{"SigningKeys_TakenGenerationOrIDIsDuplicateRetireDeletes", testSigningKeys},
		{"SigningKeys_SixteenConcurrentFirstKeysOneWinner", testSigningKeyRace},
		{"EventJournal_TakenIDIsDuplicateRecordReadsBackWhole", testJournalInsert},
		{"EventJournal_PagesOldestFirstBeforeATimeDeletedInBatches", testJournalPaging},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newStore(t)) })
	}
	t.Run("ExportImport_RoundTripAndRefusals", func(t *testing.T) { testExportImport(t, newStore) })
}

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)

func ptr[T any](v T) *T { return &v }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t testing.TB, err, want error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

// race runs fn n times at once and returns the errors.
func race(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = fn(i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

// oneWinner checks that exactly one call succeeded and the others found
// the key taken.
func oneWinner(t *testing.T, errs []error) {
	t.Helper()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, access.ErrDuplicate):
			t.Fatalf("a loser failed with %v, want ErrDuplicate", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d winners, want 1", ok)
	}
}

func newApp(t testing.TB, s access.Store) *access.App {
	t.Helper()
	a := &access.App{ID: uuid.NewString(), Name: "app", APIKey: uuid.NewString(), SecretHash: "h", MaxDevices: 1,
		SessionTTL: time.Hour, CreatedAt: epoch}
	must(t, s.InsertApp(context.Background(), a))
	return a
}

// newUser writes a user's account and by-ID record.
func newUser(t testing.TB, s access.Store, appID, name string) *access.User {
	t.Helper()
	u := &access.User{ID: uuid.NewString(), AppID: appID, Username: name, CreatedAt: epoch}
	must(t, s.InsertAccount(context.Background(), u))
	must(t, s.InsertUser(context.Background(), u))
	return u
}

func newLicenses(t testing.TB, s access.Store, appID string, n int, g access.Grant) []access.License {
	t.Helper()
	ls := make([]access.License, n)
	for i := range ls {
		ls[i] = access.License{ID: uuid.NewString(), AppID: appID, CodeHint: fmt.Sprintf("%04d", i), Grant: g, CreatedAt: epoch}
	}
	must(t, s.InsertLicenses(context.Background(), ls))
	return ls
}

// redemption is a license activation of an existing user, or a sign-up
// when user is nil.
func redemption(appID string, l access.License, user *access.User, at time.Time) *access.Redemption {
	use := &access.LicenseUse{LicenseID: l.ID, AppID: appID, ActivationID: "act-" + l.ID, OccurredAt: at}
	r := &access.Redemption{Use: use, Grant: l.Grant}
	if user == nil {
		use.UserID, use.Username, use.SignUp = uuid.NewString(), "user-"+l.ID[:8], true
		r.NewUser = &access.User{ID: use.UserID, AppID: appID, Username: use.Username, CreatedAt: at}
	} else {
		use.UserID, use.Username = user.ID, user.Username
	}
	r.Activation = access.Activation{ID: use.ActivationID, AppID: appID, UserID: use.UserID, Type: access.ActivationLicense,
		LicenseID: l.ID, OccurredAt: at, Minutes: l.Grant.Minutes, GrantsLifetimeAccess: l.Grant.GrantsLifetimeAccess,
		RevokesLifetimeAccess: l.Grant.RevokesLifetimeAccess}
	return r
}
