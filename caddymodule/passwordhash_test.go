package caddymodule

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/appaccess/appaccess/accessapi/access"
)

// validatedApp is the app_access global option whose body is body, parsed
// (a parse error fails the test) and validated.
func validatedApp(t *testing.T, body string) (*App, error) {
	t.Helper()
	a := new(App)
	if err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser("app_access {\n" + body + "\n}")); err != nil {
		t.Fatal(err)
	}
	return a, a.Validate()
}

// TestConfig_PasswordHashCostIsSetInTheCaddyfileAndNeverBelowOWASP: the
// argon2id memory and passes are app settings whose default is OWASP's
// minimum, and less memory than OWASP's pairing for the passes given is
// refused at load.
func TestConfig_PasswordHashCostIsSetInTheCaddyfileAndNeverBelowOWASP(t *testing.T) {
	for _, tt := range []struct {
		name, caddyfile string
		want            access.Argon2Params
		wantErr         string
	}{
		{"left out: OWASP's minimum", "", access.OWASPArgon2, ""},
		{"raised", "hash_memory_kib 65536\nhash_iterations 3", access.Argon2Params{MemoryKiB: 65536, Iterations: 3, Parallelism: 1}, ""},
		{"memory alone", "hash_memory_kib 47104", access.Argon2Params{MemoryKiB: 47104, Iterations: 2, Parallelism: 1}, ""},
		{"OWASP's 7 MiB pairing", "hash_memory_kib 7168\nhash_iterations 5", access.Argon2Params{MemoryKiB: 7168, Iterations: 5, Parallelism: 1}, ""},
		{"OWASP's one-pass pairing", "hash_memory_kib 47104\nhash_iterations 1", access.Argon2Params{MemoryKiB: 47104, Iterations: 1, Parallelism: 1}, ""},
		{"OWASP's 12 MiB pairing", "hash_memory_kib 12288\nhash_iterations 3", access.Argon2Params{MemoryKiB: 12288, Iterations: 3, Parallelism: 1}, ""},
		{"under OWASP at one pass", "hash_memory_kib 47103\nhash_iterations 1", access.Argon2Params{}, "at least 47104 KiB at 1 iterations"},
		{"under OWASP at two passes", "hash_memory_kib 19455", access.Argon2Params{}, "at least 19456 KiB at 2 iterations"},
		{"under OWASP at four passes", "hash_memory_kib 9215\nhash_iterations 4", access.Argon2Params{}, "at least 9216 KiB at 4 iterations"},
		{"too little memory whatever the passes", "hash_memory_kib 4096\nhash_iterations 10", access.Argon2Params{}, "at least 7168 KiB at 10 iterations"},
		{"more passes than a stored hash may carry", "hash_iterations 65", access.Argon2Params{}, "iterations must be at most 64"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := validatedApp(t, tt.caddyfile)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Validate: %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || a.argon2() != tt.want {
				t.Fatalf("cost %+v, %v; want %+v", a.argon2(), err, tt.want)
			}
		})
	}
	a := new(App)
	if err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser("app_access {\nhash_iterations zero\n}")); err == nil {
		t.Fatal("a word for hash_iterations was taken")
	}
}
