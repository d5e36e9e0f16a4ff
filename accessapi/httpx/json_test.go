package httpx_test

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

type settings struct {
	Name  *string `json:"name"`
	Count *int    `json:"count"`
}

func decode(body string, limit int64, strict bool) error {
	r := httptest.NewRequest("POST", "/", strings.NewReader(body))
	var v settings
	if strict {
		return httpx.DecodeStrictJSON(httptest.NewRecorder(), r, &v, limit)
	}
	return httpx.DecodeJSON(httptest.NewRecorder(), r, &v, limit)
}

func TestDecodeJSON_RefusalsNameTheField(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, body    string
		limit         int64
		strict        bool
		code          access.Code
		field, detail string
	}{
		{"object", `{"name": "x"}`, 64, false, "", "", ""},
		{"unknown field, lenient", `{"name": "x", "nmae": "y"}`, 64, false, "", "", ""},
		{"unknown field, strict", `{"name": "x", "nmae": "y"}`, 64, true, access.CodeValidationFailed, "nmae", ""},
		{"wrong type", `{"count": "5"}`, 64, true, access.CodeValidationFailed, "count", ""},
		{"empty", ``, 64, false, access.CodeValidationFailed, "body", ""},
		{"array", `[{"name": "x"}]`, 64, false, access.CodeValidationFailed, "body", ""},
		{"null", `null`, 64, true, access.CodeValidationFailed, "body", ""},
		{"truncated", `{"name": `, 64, false, access.CodeValidationFailed, "body", ""},
		{"two objects", `{} {}`, 64, false, access.CodeValidationFailed, "body", ""},
		{"at the limit", `{"name":"` + strings.Repeat("a", 1013) + `"}`, 1024, false, "", "", ""},
		{"over the limit", `{"name":"` + strings.Repeat("a", 1014) + `"}`, 1024, false, access.CodePayloadTooLarge, "", "The request body is larger than 1 KiB."},
		{"a large limit is honoured", `{"name":"` + strings.Repeat("a", 100<<10) + `"}`, 2 << 20, true, "", "", ""},
		{"a repeated key", `{"name": "a", "name": "b"}`, 64, false, access.CodeValidationFailed, "name", ""},
		{"a repeated key in a nested object", `{"inner": {"name": "a", "x": [1, {"name": 2}], "name": "b"}}`, 128, false, access.CodeValidationFailed, "name", ""},
		{"one name in sibling objects", `{"a": {"name": 1}, "b": {"name": 2}, "c": [{"name": 3}, {"name": 4}]}`, 128, false, "", "", ""},
		{"a key equal to a value", `{"name": "name", "list": ["name", "name"]}`, 128, false, "", "", ""},
		// encoding/json matches a field's key ignoring case, with Unicode's
		// simple folding: those are the same key too.
		{"a repeated key in another case", `{"name": "a", "NAME": "b"}`, 64, false, access.CodeValidationFailed, "NAME", ""},
		{"a repeated key with the Kelvin sign", `{"key": "a", "\u212aey": "b"}`, 64, false, access.CodeValidationFailed, "\u212aey", ""},
		{"a repeated key with the long s", `{"sum": "a", "\u017fum": "b"}`, 64, false, access.CodeValidationFailed, "\u017fum", ""},
		{"a repeated key after a number no float holds", `{"x": 1e400, "name": "a", "name": "b"}`, 64, false, access.CodeValidationFailed, "name", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := decode(tt.body, tt.limit, tt.strict)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			p := httpx.ProblemOf(err)
			if p.Code != string(tt.code) {
				t.Fatalf("code %s, want %s (%v)", p.Code, tt.code, err)
			}
			if tt.field != "" && (len(p.Errors) != 1 || p.Errors[0].Field != tt.field) {
				t.Fatalf("fields %+v, want %s", p.Errors, tt.field)
			}
			if tt.field == "body" && p.Errors[0].Message != "must be a JSON object" {
				t.Fatalf("body wording %q", p.Errors[0].Message)
			}
			if tt.detail != "" && p.Detail != tt.detail {
				t.Fatalf("detail %q, want %q", p.Detail, tt.detail)
			}
		})
	}
}

// go test -fuzz FuzzDecodeStrictJSON ./accessapi/httpx/
func FuzzDecodeStrictJSON(f *testing.F) {
	for _, s := range []string{`{"name":"a","count":1}`, `{"nmae":1}`, `[]`, `{`, ``, `null`, `{"count":1e99}`, `{"name":"\u0000"}`, `{"a":{"b":1},"c":[{"d":2},[]],"a2":{}}`, `{"n":1,"n":2}`,
		`{"credentials": {"username": 1}, "count": "x"}`, `{"events": ["a", 2]}`, `{"Hardware_ID": [], "credentials": null}`, `{"count": 1.5}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, strict := range []bool{false, true} {
			// Into a flat struct and into one with a nested object.
			var nested login
			r := httptest.NewRequest("POST", "/", strings.NewReader(body))
			for _, err := range []error{decode(body, 1024, strict), httpx.DecodeJSON(httptest.NewRecorder(), r, &nested, 1024)} {
				if err == nil {
					continue
				}
				// Every refusal is one a client is shown, never an internal
				// error, and a validation refusal names a field.
				p := httpx.ProblemOf(err)
				if code := access.CodeOf(err); code != access.CodeValidationFailed && code != access.CodePayloadTooLarge ||
					code == access.CodeValidationFailed && len(p.Errors) == 0 {
					t.Fatalf("decode(%q, strict %v): %v %+v", body, strict, err, p.Errors)
				}
			}
		}
	})
}

func TestSizeText_WordsTheLimits(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{64 << 10: "64 KiB", 2 << 20: "2 MiB", 1 << 30: "1 GiB", 1000: "1000 bytes"} {
		if got := httpx.SizeText(n); got != want {
			t.Errorf("SizeText(%d) = %q, want %q", n, got, want)
		}
	}
}

// login is a request with a nested object and a list.
type login struct {
	Credentials struct {
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"credentials"`
	HardwareID string   `json:"hardware_id"`
	Events     []string `json:"events"`
	Count      *int     `json:"count"`
}

func TestDecodeJSON_EveryFieldOfTheWrongTypeIsNamedInOneRefusal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, body string
		want       []wire.FieldError
	}{
		{"two top-level fields", `{"hardware_id": 7, "count": "5"}`,
			[]wire.FieldError{{Field: "hardware_id", Message: "must be a string"}, {Field: "count", Message: "must be an integer"}}},
		{"nested and top-level", `{"credentials": {"username": 1, "password": true}, "events": "user.banned"}`,
			[]wire.FieldError{{Field: "credentials.username", Message: "must be a string"}, {Field: "credentials.password", Message: "must be a string"},
				{Field: "events", Message: "must be an array"}}},
		{"an object that is not one", `{"credentials": "alice", "count": 1.5}`,
			[]wire.FieldError{{Field: "credentials", Message: "must be an object"}, {Field: "count", Message: "must be an integer"}}},
		{"keys in another case, nulls and unknown keys", `{"Hardware_ID": [], "credentials": null, "other": 1, "count": null}`,
			[]wire.FieldError{{Field: "hardware_id", Message: "must be a string"}}},
		{"a list with an element of the wrong type", `{"events": ["a", 2]}`,
			[]wire.FieldError{{Field: "events", Message: "must be a string"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v login
			err := httpx.DecodeJSON(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(tt.body)), &v, 1024)
			p := httpx.ProblemOf(err)
			if p.Code != string(access.CodeValidationFailed) || !slices.Equal(p.Errors, tt.want) {
				t.Fatalf("refusal %s %+v, want validation_failed %+v", p.Code, p.Errors, tt.want)
			}
		})
	}
}
