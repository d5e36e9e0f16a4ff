package clientapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// go test -fuzz FuzzParseRange ./accessapi/clientapi/
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-99", "bytes=-5", "bytes=5-", "bytes=9-3", "bytes=0-1,3-4", "items=0-1", "bytes=-0", "bytes=18446744073709551615-"} {
		f.Add(s, int64(100))
	}
	f.Fuzz(func(t *testing.T, header string, size int64) {
		if size < 0 {
			size = -size
		}
		first, last, ok := parseRange(header, size)
		if ok && (first < 0 || last < first || last >= size) {
			t.Fatalf("parseRange(%q, %d) = %d-%d", header, size, first, last)
		}
	})
}

func TestParseRange_SingleRanges(t *testing.T) {
	tests := []struct {
		header      string
		first, last int64
		ok          bool
	}{
		{"bytes=0-99", 0, 99, true},
		{"bytes=90-200", 90, 99, true},
		{"bytes=-10", 90, 99, true},
		{"bytes=-500", 0, 99, true},
		{"bytes=50-", 50, 99, true},
		{"bytes=100-", 0, 0, false},
		{"bytes=5-4", 0, 0, false},
		{"bytes=0-1,5-6", 0, 0, false},
		{"lines=0-1", 0, 0, false},
	}
	for _, tt := range tests {
		f, l, ok := parseRange(tt.header, 100)
		if ok != tt.ok || (ok && (f != tt.first || l != tt.last)) {
			t.Errorf("parseRange(%q) = %d-%d %v, want %d-%d %v", tt.header, f, l, ok, tt.first, tt.last, tt.ok)
		}
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"username":"a","password":"b"}`, `{"username":1}`, `[]`, `{`, ``, `null`, `{"credentials":{"code":"x"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var b wire.LoginRequest
		r := httptest.NewRequest("POST", "/", strings.NewReader(body))
		err := httpx.DecodeJSON(httptest.NewRecorder(), r, &b, MaxBodyBytes)
		if err == nil {
			return
		}
		// Every refusal is one a client is shown, never an internal error.
		if code := access.CodeOf(err); code != access.CodeValidationFailed && code != access.CodePayloadTooLarge {
			t.Fatalf("DecodeJSON(%q): %v", body, err)
		}
	})
}

func FuzzHeaderCredentials(f *testing.F) {
	f.Add("Bearer abc", "CODE", "user", "pass")
	f.Add("bearer  x ", "", "", "")
	f.Add("Basic dXNlcjpwYXNz", "", "user", "pass")
	f.Fuzz(func(t *testing.T, authz, code, user, pass string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header = http.Header{}
		r.Header.Set("Authorization", authz)
		r.Header.Set(HeaderLicenseCode, code)
		r.Header.Set(HeaderUsername, user)
		r.Header.Set(HeaderPassword, pass)
		c := HeaderCredentials(r)
		forms := 0
		for _, present := range []bool{c.Token != "", c.Code != "", c.Username != "" || c.Password != ""} {
			if present {
				forms++
			}
		}
		if forms > 1 {
			t.Fatalf("more than one credential form used: %+v", c)
		}
	})
}
