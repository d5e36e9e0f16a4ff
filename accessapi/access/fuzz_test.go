package access

import (
	"strings"
	"testing"
)

// go test -fuzz FuzzLicenseID ./accessapi/access/
var fuzzKey = []byte("fuzz key")

func FuzzLicenseID(f *testing.F) {
	for _, s := range []string{"KAHM8-NXNV4-5M4FT-0ASXM-YBK30", "kahm8 nxnv4", "", "-", "ÄÖÜ", strings.Repeat("A", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		id := LicenseID(fuzzKey, "app", code)
		n := NormalizeLicenseCode(code)
		if (id == "") != (n == "" || len(n) > MaxLicenseCodeLength) {
			t.Fatalf("LicenseID(%q) = %q for normal form %q", code, id, n)
		}
		if id == "" {
			return
		}
		// Case, dashes and spaces never matter; the application does.
		variant := strings.ToLower(strings.ReplaceAll(code, "-", " "))
		if NormalizeLicenseCode(variant) == n && LicenseID(fuzzKey, "app", variant) != id {
			t.Fatalf("%q and %q are the same code but have different ids", code, variant)
		}
		if LicenseID(fuzzKey, "other", code) == id {
			t.Fatalf("%q has the same id in two applications", code)
		}
	})
}

func FuzzDecodeArgon2(f *testing.F) {
	h := NewPasswordHasher(Argon2Params{MemoryKiB: 8, Iterations: 1, Parallelism: 1}, 1, 0)
	f.Add(h.dummy)
	f.Add("$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA")
	f.Add("$argon2id$v=19$m=99999999999,t=1,p=1$$")
	f.Add("")
	f.Fuzz(func(t *testing.T, encoded string) {
		p, salt, key, err := decodeArgon2(encoded)
		if err != nil {
			return
		}
		// Whatever parses is bounded, so verifying it cannot exhaust memory.
		if p.MemoryKiB == 0 || p.MemoryKiB > 4<<20 || p.Iterations == 0 || p.Iterations > 64 || p.Parallelism == 0 || len(salt) < 8 || len(key) < 16 {
			t.Fatalf("accepted %q as %+v", encoded, p)
		}
	})
}

func FuzzValidateUsername(f *testing.F) {
	for _, s := range []string{"alice", " bob", "a\x00b", "ab", strings.Repeat("é", 64), "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidateUsername(name) != nil {
			return
		}
		if strings.TrimSpace(name) != name || len([]rune(name)) < 3 || len([]rune(name)) > 64 {
			t.Fatalf("accepted %q", name)
		}
		if UsernameKey(name) != UsernameKey(strings.ToUpper(name)) && strings.ToLower(strings.ToUpper(name)) == strings.ToLower(name) {
			t.Fatalf("%q and its upper case are different users", name)
		}
	})
}

func TestLicenseCodes_AreFiveGroupsOfCrockfordBase32(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		c := NewLicenseCode()
		groups := strings.Split(c, "-")
		if len(groups) != 5 {
			t.Fatalf("%q", c)
		}
		for _, g := range groups {
			if len(g) != 5 || strings.Trim(g, crockford) != "" {
				t.Fatalf("%q is not Crockford base32", c)
			}
		}
		if seen[c] {
			t.Fatalf("%q issued twice", c)
		}
		seen[c] = true
	}
}

func FuzzValidHardwareID(f *testing.F) {
	for _, s := range []string{"HW-AAA", " hw", "hw\x00", strings.Repeat("h", 257), "\u202ehw", "机器-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if !validHardwareID(id) {
			return
		}
		if id == "" || len(id) > MaxHardwareIDLength || strings.TrimSpace(id) != id || strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Fatalf("accepted %q", id)
		}
	})
}
