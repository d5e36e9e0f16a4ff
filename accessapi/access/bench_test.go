package access_test

import (
	"context"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

// The domain's request paths against the embedded store:
//
//	go test -run '^$' -bench . -benchmem ./accessapi/access/

// benchUser signs up an active password user, logs them in and returns the
// fixture, the token and the user's license code.
func benchUser(b *testing.B) (*fixture, string, string) {
	b.Helper()
	f := newFixture(b, access.AppSettings{})
	ctx := context.Background()
	if _, err := f.svc.SignUp(ctx, f.app, access.SignUpRequest{Username: "bench", Password: "vortex-lamp-71"}); err != nil {
		b.Fatal(err)
	}
	code := f.license(b, access.Grant{GrantsLifetimeAccess: true})
	if _, err := f.svc.ActivateLicense(ctx, f.app, access.ActivateRequest{Code: code, Username: "bench", Password: "vortex-lamp-71"}); err != nil {
		b.Fatal(err)
	}
	grant, err := f.svc.Login(ctx, f.app, access.LoginRequest{Credentials: access.Credentials{Username: "bench", Password: "vortex-lamp-71"}})
	if err != nil {
		b.Fatal(err)
	}
	return f, grant.Token, code
}

func BenchmarkAuthenticate(b *testing.B) {
	f, token, code := benchUser(b)
	ctx := context.Background()
	for _, bc := range []struct {
		name  string
		creds access.Credentials
		svc   func() *access.Service
	}{
		{"token/warm", access.Credentials{Token: token}, func() *access.Service { return f.svc }},
		{"password/warm", access.Credentials{Username: "bench", Password: "vortex-lamp-71"}, func() *access.Service { return f.svc }},
		{"license/warm", access.Credentials{Code: code}, func() *access.Service { return f.svc }},
		// Cold: a new service per request, so every read goes to the store.
		{"token/cold", access.Credentials{Token: token}, func() *access.Service { return newService(f.store) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.svc().Authenticate(ctx, f.app, bc.creds, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAuthenticateApp_Warm(b *testing.B) {
	store := newFixture(b, access.AppSettings{}).store
	svc := newService(store)
	app, err := svc.CreateApp(context.Background(), access.AppSettings{Name: ptr("bench")})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.AuthenticateApp(context.Background(), app.APIKey, app.APISecret); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMembershipOf_HundredEntries(b *testing.B) {
	t0 := time.Now()
	ledger := make([]access.Activation, 100)
	for i := range ledger {
		m := int64(60)
		ledger[i] = access.Activation{ID: string(rune('a'+i%26)) + time.Duration(i).String(), OccurredAt: t0.Add(time.Duration(i) * time.Minute), Minutes: &m}
	}
	b.ReportAllocs()
	for b.Loop() {
		access.MembershipOf(ledger)
	}
}

func BenchmarkPasswordHasher_OWASP(b *testing.B) {
	h := access.NewPasswordHasher(access.OWASPArgon2, 0, 0)
	hash, err := h.Hash(context.Background(), "vortex-lamp-71")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := h.Verify(context.Background(), "vortex-lamp-71", hash); !ok {
			b.Fatal("verify failed")
		}
	}
}
