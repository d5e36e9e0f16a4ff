package access_test

import (
	"context"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// cheapArgon2 keeps tests fast; production uses access.OWASPArgon2.
var cheapArgon2 = access.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}

type fixture struct {
	store access.Store
	svc   *access.Service
	app   *access.App
}

func newFixture(t testing.TB, settings access.AppSettings) *fixture {
	t.Helper()
	store := storetest.Default(t)
	f := &fixture{store: store, svc: newService(store)}
	if settings.Name == nil {
		settings.Name = ptr("test app")
	}
	app, err := f.svc.CreateApp(context.Background(), settings)
	if err != nil {
		t.Fatal(err)
	}
	f.app = &app.App
	return f
}

func newService(store access.Store) *access.Service {
	return access.NewService(store, access.Config{Argon2: cheapArgon2})
}

func (f *fixture) license(t testing.TB, g access.Grant) string {
	t.Helper()
	ls, err := f.svc.CreateLicenses(context.Background(), f.app.ID, access.LicenseRequest{Count: 1, Grant: g})
	if err != nil {
		t.Fatal(err)
	}
	return ls[0].Code
}

func ptr[T any](v T) *T { return &v }

func minutesGrant(n int64) access.Grant { return access.Grant{Minutes: &n} }

func wantCode(t *testing.T, err error, code access.Code) {
	t.Helper()
	if got := access.CodeOf(err); got != code {
		t.Fatalf("error %v: code %s, want %s", err, got, code)
	}
}

func expiresIn(t *testing.T, m access.Membership, from time.Time, d time.Duration) {
	t.Helper()
	if m.ExpiresAt == nil || !m.ExpiresAt.Equal(from.Add(d)) {
		t.Fatalf("membership expires at %v, want %v", m.ExpiresAt, from.Add(d))
	}
}
