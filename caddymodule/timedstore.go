package caddymodule

import (
	"context"
	"io"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// timedStore is the store with the latency of its operations on the
// request path recorded in app_access_store_operation_duration_seconds.
// The others (administration, cleanup) pass through untimed.
type timedStore struct {
	access.Store
}

// Unwrap implements access.StoreWrapper, so the optional interfaces of the
// store (backup, export, import) stay visible through the decorator.
func (s timedStore) Unwrap() access.Store { return s.Store }

// observeStore records an operation that began at start.
func observeStore(operation string, start time.Time) {
	storeSeconds.WithLabelValues(operation).Observe(time.Since(start).Seconds())
}

func (s timedStore) AppByKey(ctx context.Context, apiKey string) (*access.App, error) {
	defer observeStore("app_by_key", time.Now())
	return s.Store.AppByKey(ctx, apiKey)
}

func (s timedStore) AccountByName(ctx context.Context, appID, usernameKey string) (*access.User, error) {
	defer observeStore("account_by_name", time.Now())
	return s.Store.AccountByName(ctx, appID, usernameKey)
}

func (s timedStore) InsertAccount(ctx context.Context, u *access.User) error {
	defer observeStore("insert_account", time.Now())
	return s.Store.InsertAccount(ctx, u)
}

func (s timedStore) InsertUser(ctx context.Context, u *access.User) error {
	defer observeStore("insert_user", time.Now())
	return s.Store.InsertUser(ctx, u)
}

func (s timedStore) UserByID(ctx context.Context, userID string) (*access.User, error) {
	defer observeStore("user_by_id", time.Now())
	return s.Store.UserByID(ctx, userID)
}

func (s timedStore) BanOf(ctx context.Context, userID string) (*access.Ban, error) {
	defer observeStore("ban_of", time.Now())
	return s.Store.BanOf(ctx, userID)
}

func (s timedStore) RecordLogin(ctx context.Context, l *access.LastLogin) error {
	defer observeStore("record_login", time.Now())
	return s.Store.RecordLogin(ctx, l)
}

func (s timedStore) AppendActivation(ctx context.Context, a *access.Activation) error {
	defer observeStore("append_activation", time.Now())
	return s.Store.AppendActivation(ctx, a)
}

func (s timedStore) Ledger(ctx context.Context, userID string) ([]access.Activation, error) {
	defer observeStore("ledger", time.Now())
	return s.Store.Ledger(ctx, userID)
}

func (s timedStore) LicenseByID(ctx context.Context, licenseID string) (*access.License, error) {
	defer observeStore("license_by_id", time.Now())
	return s.Store.LicenseByID(ctx, licenseID)
}

func (s timedStore) InsertLicenseUse(ctx context.Context, u *access.LicenseUse, g access.Grant) error {
	defer observeStore("insert_license_use", time.Now())
	return s.Store.InsertLicenseUse(ctx, u, g)
}

func (s timedStore) LicenseUseByID(ctx context.Context, licenseID string) (*access.LicenseUse, access.Grant, error) {
	defer observeStore("license_use_by_id", time.Now())
	return s.Store.LicenseUseByID(ctx, licenseID)
}

func (s timedStore) InsertDevice(ctx context.Context, d *access.Device) error {
	defer observeStore("insert_device", time.Now())
	return s.Store.InsertDevice(ctx, d)
}

func (s timedStore) DeviceInSlot(ctx context.Context, userID string, slot int) (*access.Device, error) {
	defer observeStore("device_in_slot", time.Now())
	return s.Store.DeviceInSlot(ctx, userID, slot)
}

func (s timedStore) InsertSession(ctx context.Context, sess *access.Session) error {
	defer observeStore("insert_session", time.Now())
	return s.Store.InsertSession(ctx, sess)
}

func (s timedStore) SessionByHash(ctx context.Context, tokenHash string) (*access.Session, error) {
	defer observeStore("session_by_hash", time.Now())
	return s.Store.SessionByHash(ctx, tokenHash)
}

func (s timedStore) DeleteSession(ctx context.Context, tokenHash string) error {
	defer observeStore("delete_session", time.Now())
	return s.Store.DeleteSession(ctx, tokenHash)
}

func (s timedStore) Variables(ctx context.Context, appID string) ([]access.Variable, error) {
	defer observeStore("variables", time.Now())
	return s.Store.Variables(ctx, appID)
}

func (s timedStore) Files(ctx context.Context, appID string) ([]access.File, error) {
	defer observeStore("files", time.Now())
	return s.Store.Files(ctx, appID)
}

func (s timedStore) FileByID(ctx context.Context, fileID string) (*access.File, error) {
	defer observeStore("file_by_id", time.Now())
	return s.Store.FileByID(ctx, fileID)
}

// OpenFile times the opening only; the bytes stream afterwards.
func (s timedStore) OpenFile(ctx context.Context, fileID string, offset int64) (io.ReadCloser, error) {
	defer observeStore("open_file", time.Now())
	return s.Store.OpenFile(ctx, fileID, offset)
}

func (s timedStore) AddFailure(ctx context.Context, key string, at time.Time) error {
	defer observeStore("add_failure", time.Now())
	return s.Store.AddFailure(ctx, key, at)
}

func (s timedStore) Failures(ctx context.Context, key string, since time.Time) (int, time.Time, error) {
	defer observeStore("failures", time.Now())
	return s.Store.Failures(ctx, key, since)
}

func (s timedStore) KnownSourceOwners(ctx context.Context, key, source string) ([]string, error) {
	defer observeStore("known_source_owners", time.Now())
	return s.Store.KnownSourceOwners(ctx, key, source)
}

var _ access.Store = timedStore{}
