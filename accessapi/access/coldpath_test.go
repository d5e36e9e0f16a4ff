package access_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// TestTokenRequest_ColdSessionAndUserCostTwoStoreCalls counts the calls a
// token request makes when neither its session nor its user is cached (the
// application is): the session, then the user's state in one call. Warm, it
// makes none.
func TestTokenRequest_ColdSessionAndUserCostTwoStoreCalls(t *testing.T) {
	stores := []struct {
		name  string
		store func(t testing.TB) access.Store
	}{
		{"sqlite", func(t testing.TB) access.Store { return storetest.SQLite(t) }},
		{"mongodb", func(t testing.TB) access.Store { return storetest.Mongo(t) }},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			ctx := context.Background()
			store := st.store(t)
			admin := newService(store)
			app, err := admin.CreateApp(ctx, access.AppSettings{Name: ptr("cold")})
			if err != nil {
				t.Fatal(err)
			}
			f := &fixture{store: store, svc: admin, app: &app.App}
			code := f.license(t, minutesGrant(600))
			if _, err := admin.SignUpWithLicense(ctx, &app.App, code, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := admin.GrantUser(ctx, app.ID, codeUserID(t, admin, &app.App, code), access.GrantRequest{Grant: minutesGrant(60)}); err != nil {
				t.Fatal(err)
			}
			grant, err := admin.Login(ctx, &app.App, access.LoginRequest{Credentials: access.Credentials{Code: code}})
			if err != nil {
				t.Fatal(err)
			}

			counting := newCountingStore(store)
			cold := newService(counting)
			served, err := cold.AuthenticateApp(ctx, app.APIKey, app.APISecret)
			if err != nil {
				t.Fatal(err)
			}
			counting.take()
			for i, want := range []int{2, 0} {
				u, err := cold.Authenticate(ctx, served, access.Credentials{Token: grant.Token}, true)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if !u.Membership.IsActive(cold.Now()) {
					t.Fatalf("request %d: membership %+v is not active", i, u.Membership)
				}
				calls := counting.take()
				t.Logf("request %d: %d store calls %v", i, len(calls), calls)
				if len(calls) != want {
					t.Fatalf("request %d made %d store calls %v, want %d", i, len(calls), calls, want)
				}
				if i == 0 && fmt.Sprint(calls) != "[SessionByHash UserState]" {
					t.Fatalf("cold request made %v, want the session and the user state", calls)
				}
			}
		})
	}
}

// codeUserID returns the ID of the user a license code signed up.
func codeUserID(t testing.TB, svc *access.Service, app *access.App, code string) string {
	t.Helper()
	u, err := svc.Authenticate(context.Background(), app, access.Credentials{Code: code}, false)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}
