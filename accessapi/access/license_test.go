package access

import "testing"

func TestCodeEntropyBits_ImportedCodesNeedAbout80Bits(t *testing.T) {
	tests := []struct {
		code string
		ok   bool
	}{
		{NewLicenseCode(), true},
		{"7KX2M9QWPT4HZRB8", true},          // 16 random letters and digits
		{"4829103756281947365028173", true}, // 25 random digits
		{"SHOP0001", false},
		{"1234567890123456", false},
		{"ABABABABABABABABABAB", false},
		{"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", false},
	}
	for _, tt := range tests {
		bits := CodeEntropyBits(NormalizeLicenseCode(tt.code))
		if got := bits >= MinImportedCodeBits; got != tt.ok {
			t.Errorf("%q: %.0f bits, accepted %v, want %v", tt.code, bits, got, tt.ok)
		}
	}
}

func TestCodeHint_NeverShowsAWholeCode(t *testing.T) {
	for _, code := range []string{"A", "ABCD", "ABCDEFGH", "7KX2M9QWPT4HZRB8", NewLicenseCode()} {
		hint, n := codeHint(code), NormalizeLicenseCode(code)
		if len(hint) > 4 || 4*len(hint) > len(n) {
			t.Errorf("hint %q of %q shows too much", hint, code)
		}
	}
}

func TestLicenseID_DependsOnTheServerKey(t *testing.T) {
	code := NewLicenseCode()
	if LicenseID([]byte("key one"), "app", code) == LicenseID([]byte("key two"), "app", code) {
		t.Fatal("the same code has the same ID under two keys")
	}
}
