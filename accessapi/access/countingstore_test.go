package access_test

import (
	"context"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// countingStore counts the calls made to a real store, by method. Each
// method of access.Store is wrapped; a method added to the interface later
// is still served (by the embedded store) but not counted until it is
// added here.
type countingStore struct {
	access.Store
	mu    sync.Mutex
	calls map[string]int
}

func newCountingStore(s access.Store) *countingStore {
	return &countingStore{Store: s, calls: map[string]int{}}
}

func (c *countingStore) count(method string) {
	c.mu.Lock()
	c.calls[method]++
	c.mu.Unlock()
}

// take returns the calls counted since the last take, sorted, and resets.
func (c *countingStore) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for m, n := range c.calls {
		for range n {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	clear(c.calls)
	return out
}

func (c *countingStore) AccountByName(a0 context.Context, a1 string, a2 string) (*access.User, error) {
	c.count("AccountByName")
	return c.Store.AccountByName(a0, a1, a2)
}

func (c *countingStore) Activations(a0 context.Context, a1 string, a2 string, a3 int) (access.Page[access.Activation], error) {
	c.count("Activations")
	return c.Store.Activations(a0, a1, a2, a3)
}

func (c *countingStore) AddFailure(a0 context.Context, a1 string, a2 time.Time) error {
	c.count("AddFailure")
	return c.Store.AddFailure(a0, a1, a2)
}

func (c *countingStore) AddKnownSource(a0 context.Context, a1 string, a2 string, a3 string, a4 time.Time) error {
	c.count("AddKnownSource")
	return c.Store.AddKnownSource(a0, a1, a2, a3, a4)
}

func (c *countingStore) AppByID(a0 context.Context, a1 string) (*access.App, error) {
	c.count("AppByID")
	return c.Store.AppByID(a0, a1)
}

func (c *countingStore) AppByKey(a0 context.Context, a1 string) (*access.App, error) {
	c.count("AppByKey")
	return c.Store.AppByKey(a0, a1)
}

func (c *countingStore) AppCounts(a0 context.Context, a1 string, a2 time.Time) (access.AppCounts, error) {
	c.count("AppCounts")
	return c.Store.AppCounts(a0, a1, a2)
}

func (c *countingStore) AppendActivation(a0 context.Context, a1 *access.Activation) error {
	c.count("AppendActivation")
	return c.Store.AppendActivation(a0, a1)
}

func (c *countingStore) AppendChange(a0 context.Context, a1 *access.Change) error {
	c.count("AppendChange")
	return c.Store.AppendChange(a0, a1)
}

func (c *countingStore) Apps(a0 context.Context) ([]access.App, error) {
	c.count("Apps")
	return c.Store.Apps(a0)
}

func (c *countingStore) BanOf(a0 context.Context, a1 string) (*access.Ban, error) {
	c.count("BanOf")
	return c.Store.BanOf(a0, a1)
}

func (c *countingStore) ChangesAfter(a0 context.Context, a1 int64, a2 int) ([]access.Change, error) {
	c.count("ChangesAfter")
	return c.Store.ChangesAfter(a0, a1, a2)
}

func (c *countingStore) DeleteAccount(a0 context.Context, a1 string, a2 string) error {
	c.count("DeleteAccount")
	return c.Store.DeleteAccount(a0, a1, a2)
}

func (c *countingStore) DeleteApp(a0 context.Context, a1 string) error {
	c.count("DeleteApp")
	return c.Store.DeleteApp(a0, a1)
}

func (c *countingStore) DeleteBan(a0 context.Context, a1 string) error {
	c.count("DeleteBan")
	return c.Store.DeleteBan(a0, a1)
}

func (c *countingStore) DeleteChangesBefore(a0 context.Context, a1 time.Time) (int64, error) {
	c.count("DeleteChangesBefore")
	return c.Store.DeleteChangesBefore(a0, a1)
}

func (c *countingStore) DeleteDevices(a0 context.Context, a1 string) error {
	c.count("DeleteDevices")
	return c.Store.DeleteDevices(a0, a1)
}

func (c *countingStore) DeleteFailuresBefore(a0 context.Context, a1 time.Time) (int64, error) {
	c.count("DeleteFailuresBefore")
	return c.Store.DeleteFailuresBefore(a0, a1)
}

func (c *countingStore) DeleteFile(a0 context.Context, a1 string) error {
	c.count("DeleteFile")
	return c.Store.DeleteFile(a0, a1)
}

func (c *countingStore) DeleteLedger(a0 context.Context, a1 string) error {
	c.count("DeleteLedger")
	return c.Store.DeleteLedger(a0, a1)
}

func (c *countingStore) DeleteLicense(a0 context.Context, a1 string) error {
	c.count("DeleteLicense")
	return c.Store.DeleteLicense(a0, a1)
}

func (c *countingStore) DeleteLogin(a0 context.Context, a1 string) error {
	c.count("DeleteLogin")
	return c.Store.DeleteLogin(a0, a1)
}

func (c *countingStore) DeleteSession(a0 context.Context, a1 string) error {
	c.count("DeleteSession")
	return c.Store.DeleteSession(a0, a1)
}

func (c *countingStore) DeleteSessionsExpiredBefore(a0 context.Context, a1 time.Time) (int64, error) {
	c.count("DeleteSessionsExpiredBefore")
	return c.Store.DeleteSessionsExpiredBefore(a0, a1)
}

func (c *countingStore) DeleteUser(a0 context.Context, a1 string) error {
	c.count("DeleteUser")
	return c.Store.DeleteUser(a0, a1)
}

func (c *countingStore) DeleteUserSessions(a0 context.Context, a1 string) error {
	c.count("DeleteUserSessions")
	return c.Store.DeleteUserSessions(a0, a1)
}

func (c *countingStore) DeleteVariable(a0 context.Context, a1 string, a2 string) error {
	c.count("DeleteVariable")
	return c.Store.DeleteVariable(a0, a1, a2)
}

func (c *countingStore) DeviceInSlot(a0 context.Context, a1 string, a2 int) (*access.Device, error) {
	c.count("DeviceInSlot")
	return c.Store.DeviceInSlot(a0, a1, a2)
}

func (c *countingStore) Failures(a0 context.Context, a1 string, a2 time.Time) (int, time.Time, error) {
	c.count("Failures")
	return c.Store.Failures(a0, a1, a2)
}

func (c *countingStore) FileByID(a0 context.Context, a1 string) (*access.File, error) {
	c.count("FileByID")
	return c.Store.FileByID(a0, a1)
}

func (c *countingStore) Files(a0 context.Context, a1 string) ([]access.File, error) {
	c.count("Files")
	return c.Store.Files(a0, a1)
}

func (c *countingStore) InsertAccount(a0 context.Context, a1 *access.User) error {
	c.count("InsertAccount")
	return c.Store.InsertAccount(a0, a1)
}

func (c *countingStore) InsertApp(a0 context.Context, a1 *access.App) error {
	c.count("InsertApp")
	return c.Store.InsertApp(a0, a1)
}

func (c *countingStore) InsertBan(a0 context.Context, a1 *access.Ban) error {
	c.count("InsertBan")
	return c.Store.InsertBan(a0, a1)
}

func (c *countingStore) InsertDevice(a0 context.Context, a1 *access.Device) error {
	c.count("InsertDevice")
	return c.Store.InsertDevice(a0, a1)
}

func (c *countingStore) InsertFile(a0 context.Context, a1 *access.File) error {
	c.count("InsertFile")
	return c.Store.InsertFile(a0, a1)
}

func (c *countingStore) InsertLicenseUse(a0 context.Context, a1 *access.LicenseUse, a2 access.Grant) error {
	c.count("InsertLicenseUse")
	return c.Store.InsertLicenseUse(a0, a1, a2)
}

func (c *countingStore) InsertLicenses(a0 context.Context, a1 []access.License) error {
	c.count("InsertLicenses")
	return c.Store.InsertLicenses(a0, a1)
}

func (c *countingStore) InsertSession(a0 context.Context, a1 *access.Session) error {
	c.count("InsertSession")
	return c.Store.InsertSession(a0, a1)
}

func (c *countingStore) InsertUser(a0 context.Context, a1 *access.User) error {
	c.count("InsertUser")
	return c.Store.InsertUser(a0, a1)
}

func (c *countingStore) KnownSourceOwners(a0 context.Context, a1 string, a2 string) ([]string, error) {
	c.count("KnownSourceOwners")
	return c.Store.KnownSourceOwners(a0, a1, a2)
}

func (c *countingStore) IsUserDeleted(a0 context.Context, a1 string) (bool, error) {
	c.count("IsUserDeleted")
	return c.Store.IsUserDeleted(a0, a1)
}

func (c *countingStore) LastChange(a0 context.Context) (int64, error) {
	c.count("LastChange")
	return c.Store.LastChange(a0)
}

func (c *countingStore) LastLoginOf(a0 context.Context, a1 string) (*access.LastLogin, error) {
	c.count("LastLoginOf")
	return c.Store.LastLoginOf(a0, a1)
}

func (c *countingStore) Ledger(a0 context.Context, a1 string) ([]access.Activation, error) {
	c.count("Ledger")
	return c.Store.Ledger(a0, a1)
}

func (c *countingStore) LicenseByID(a0 context.Context, a1 string) (*access.License, error) {
	c.count("LicenseByID")
	return c.Store.LicenseByID(a0, a1)
}

func (c *countingStore) LicenseUseByID(a0 context.Context, a1 string) (*access.LicenseUse, access.Grant, error) {
	c.count("LicenseUseByID")
	return c.Store.LicenseUseByID(a0, a1)
}

func (c *countingStore) Licenses(a0 context.Context, a1 string, a2 access.LicenseFilter, a3 string, a4 int) ([]access.License, error) {
	c.count("Licenses")
	return c.Store.Licenses(a0, a1, a2, a3, a4)
}

func (c *countingStore) MarkLicenseUsed(a0 context.Context, a1 string) error {
	c.count("MarkLicenseUsed")
	return c.Store.MarkLicenseUsed(a0, a1)
}

func (c *countingStore) MarkUserDeleted(a0 context.Context, a1 string) error {
	c.count("MarkUserDeleted")
	return c.Store.MarkUserDeleted(a0, a1)
}

func (c *countingStore) OpenFile(a0 context.Context, a1 string, a2 int64) (io.ReadCloser, error) {
	c.count("OpenFile")
	return c.Store.OpenFile(a0, a1, a2)
}

func (c *countingStore) PutFileContents(a0 context.Context, a1 string, a2 io.Reader) error {
	c.count("PutFileContents")
	return c.Store.PutFileContents(a0, a1, a2)
}

func (c *countingStore) PutVariable(a0 context.Context, a1 *access.Variable) error {
	c.count("PutVariable")
	return c.Store.PutVariable(a0, a1)
}

func (c *countingStore) RecordLogin(a0 context.Context, a1 *access.LastLogin) error {
	c.count("RecordLogin")
	return c.Store.RecordLogin(a0, a1)
}

func (c *countingStore) RedeemLicense(a0 context.Context, a1 *access.Redemption) error {
	c.count("RedeemLicense")
	return c.Store.RedeemLicense(a0, a1)
}

func (c *countingStore) ReplaceApp(a0 context.Context, a1 *access.App) error {
	c.count("ReplaceApp")
	return c.Store.ReplaceApp(a0, a1)
}

func (c *countingStore) SessionByHash(a0 context.Context, a1 string) (*access.Session, error) {
	c.count("SessionByHash")
	return c.Store.SessionByHash(a0, a1)
}

func (c *countingStore) SetAccountPassword(a0 context.Context, a1 string, a2 string, a3 string) error {
	c.count("SetAccountPassword")
	return c.Store.SetAccountPassword(a0, a1, a2, a3)
}

func (c *countingStore) UpgradeAccountPassword(a0 context.Context, a1, a2, a3, a4 string) error {
	c.count("UpgradeAccountPassword")
	return c.Store.UpgradeAccountPassword(a0, a1, a2, a3, a4)
}

func (c *countingStore) UserByID(a0 context.Context, a1 string) (*access.User, error) {
	c.count("UserByID")
	return c.Store.UserByID(a0, a1)
}

func (c *countingStore) UserSessions(a0 context.Context, a1 string) ([]access.Session, error) {
	c.count("UserSessions")
	return c.Store.UserSessions(a0, a1)
}

func (c *countingStore) UserState(a0 context.Context, a1 string) (*access.User, *access.Ban, []access.Activation, error) {
	c.count("UserState")
	return c.Store.UserState(a0, a1)
}

func (c *countingStore) Users(a0 context.Context, a1 string, a2 string, a3 access.UserCursor, a4 int) ([]access.User, error) {
	c.count("Users")
	return c.Store.Users(a0, a1, a2, a3, a4)
}

func (c *countingStore) Variables(a0 context.Context, a1 string) ([]access.Variable, error) {
	c.count("Variables")
	return c.Store.Variables(a0, a1)
}

func (c *countingStore) InsertJournal(a0 context.Context, a1 *access.JournalRecord) error {
	c.count("InsertJournal")
	return c.Store.InsertJournal(a0, a1)
}

func (c *countingStore) DeleteJournal(a0 context.Context, a1 []string) error {
	c.count("DeleteJournal")
	return c.Store.DeleteJournal(a0, a1)
}

func (c *countingStore) JournalBefore(a0 context.Context, a1 time.Time, a2 int) ([]access.JournalRecord, error) {
	c.count("JournalBefore")
	return c.Store.JournalBefore(a0, a1, a2)
}
