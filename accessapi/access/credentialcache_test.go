package access_test

import (
	"context"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// TestCredentialCache_NegativeTTLSwitchesItOff checks that a verified
// username and password is remembered by default and read (and hashed)
// again on every request when CredentialCacheTTL is negative.
func TestCredentialCache_NegativeTTLSwitchesItOff(t *testing.T) {
	tests := []struct {
		name        string
		ttl         time.Duration
		secondReads int // AccountByName calls of the second request
	}{
		{"zero takes the default and remembers the pair", 0, 0},
		{"negative switches the cache off", -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			store := newCountingStore(storetest.SQLite(t))
			svc := access.NewService(store, access.Config{Argon2: cheapArgon2, CredentialCacheTTL: tt.ttl})
			created, err := svc.CreateApp(ctx, access.AppSettings{Name: ptr("creds")})
			must(t, err)
			app := &created.App
			if _, err := svc.SignUp(ctx, app, access.SignUpRequest{Username: "erin", Password: "vortex-lamp-71"}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.GrantUser(ctx, app.ID, mustAccountID(t, store, app.ID, "erin"), access.GrantRequest{Grant: minutesGrant(60)}); err != nil {
				t.Fatal(err)
			}
			creds := access.Credentials{Username: "erin", Password: "vortex-lamp-71"}
			for i, want := range []int{1, tt.secondReads} {
				store.take()
				if _, err := svc.Authenticate(ctx, app, creds, true); err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				reads := 0
				for _, c := range store.take() {
					if c == "AccountByName" {
						reads++
					}
				}
				if reads != want {
					t.Fatalf("request %d read the account %d times, want %d", i, reads, want)
				}
			}
		})
	}
}

func mustAccountID(t testing.TB, s access.Store, appID, username string) string {
	t.Helper()
	acct, err := s.AccountByName(context.Background(), appID, access.UsernameKey(username))
	must(t, err)
	return acct.ID
}
