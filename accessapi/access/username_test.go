package access

import "testing"

func TestUsernameKey_LookalikeNamesAreOneUser(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"alice", "Alice", true},
		{"alice", "ＡＬＩＣＥ", true},                     // full-width
		{"alice", "\u0430lice", true},                // Cyrillic а
		{"alice", "\u0430l\u0456\u0441\u0435", true}, // Cyrillic а, і, с, е
		{"Caf\u00e9", "Cafe\u0301", true},            // NFC and NFD
		{"john doe", "John Doe", true},
		{"alice", "alicia", false},
		{"bob", "bób", false},
	}
	for _, tt := range tests {
		if got := UsernameKey(tt.a) == UsernameKey(tt.b); got != tt.same {
			t.Errorf("UsernameKey(%q) == UsernameKey(%q) is %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

func TestValidateUsername_RefusesInvisibleAndFormatCharacters(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"alice", true},
		{"john doe", true},
		{"Café", true},
		{"bo\u200bb", false},  // zero-width space
		{"ev\u202eil", false}, // right-to-left override
		{"a\u00a0bc", false},  // no-break space
		{"ab\tc", false},
		{"john  doe", false},
		{" alice", false},
		{"ab", false},
	}
	for _, tt := range tests {
		if got := ValidateUsername(tt.name) == nil; got != tt.ok {
			t.Errorf("ValidateUsername(%q) accepted %v, want %v", tt.name, got, tt.ok)
		}
		if !tt.ok && UsernameKey(tt.name) == UsernameKey("alice") {
			t.Errorf("refused %q shares a key with a valid name", tt.name)
		}
	}
}
