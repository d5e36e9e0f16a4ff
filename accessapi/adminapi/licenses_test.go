package adminapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestAdminAPI_ImportsTenThousandCodes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	app := s.createApp(nil)
	codes := make([]string, 10000)
	for i := range codes {
		codes[i] = fmt.Sprintf("SHOP-%05d-IMPORT-BATCH-LONGER-CODE", i)
	}
	issued := decode[wire.IssuedLicenses](s, http.StatusCreated, "POST", "/apps/"+app.ID+"/licenses",
		map[string]any{"codes": codes, "minutes": 60, "note": "shop import"})
	if len(issued.Licenses) != len(codes) || issued.Licenses[9999].Code != codes[9999] {
		t.Fatalf("imported %d licenses", len(issued.Licenses))
	}
	page := decode[wire.Page[wire.License]](s, http.StatusOK, "GET", "/apps/"+app.ID+"/licenses?limit=1000", nil)
	if len(page.Items) != 1000 || page.Next == nil {
		t.Fatalf("first page has %d licenses, next %v", len(page.Items), page.Next)
	}
}

func TestAdminAPI_OversizedLicenseBodyIs413(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	app := s.createApp(nil)
	body := `{"codes": ["` + strings.Repeat("A", 3<<20) + `"]}`
	a := s.do("POST", "/apps/"+app.ID+"/licenses", nil, body)
	if a.status != http.StatusRequestEntityTooLarge || !strings.Contains(a.problem(t).Detail, "2 MiB") {
		t.Fatalf("status %d, body %.200s", a.status, a.raw)
	}
}

func TestAdminAPI_LicenseLookupTakesTheCodeInTheBody(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	app := s.createApp(nil)
	issued := decode[wire.IssuedLicenses](s, http.StatusCreated, "POST", "/apps/"+app.ID+"/licenses", map[string]any{"count": 2, "minutes": 5})
	code := issued.Licenses[1].Code
	base := "/apps/" + app.ID + "/licenses"

	found := decode[wire.License](s, http.StatusOK, "POST", base+"/lookup", wire.LicenseLookup{Code: strings.ToLower(code)})
	if found.ID != issued.Licenses[1].ID || found.Code != "" || found.CodeHint != code[len(code)-4:] {
		t.Fatalf("lookup found %+v", found)
	}

	byQuery := s.do("GET", base+"?code="+code, nil, nil)
	p := byQuery.problem(t)
	if byQuery.status != http.StatusUnprocessableEntity || len(p.Errors) != 1 || p.Errors[0].Field != "code" ||
		!strings.Contains(p.Errors[0].Message, base+"/lookup") {
		t.Fatalf("?code= answered %d %s", byQuery.status, byQuery.raw)
	}
	if strings.Contains(string(byQuery.raw), code) {
		t.Fatalf("the refusal echoes the code: %s", byQuery.raw)
	}

	for _, tt := range []struct {
		name   string
		body   any
		status int
		field  string
	}{
		{"unknown code", wire.LicenseLookup{Code: "NOPE-NOPE-NOPE"}, http.StatusNotFound, ""},
		{"no code", map[string]any{}, http.StatusUnprocessableEntity, "code"},
		{"unknown field", map[string]any{"code": code, "cod": code}, http.StatusUnprocessableEntity, "cod"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := s.do("POST", base+"/lookup", nil, tt.body)
			p := a.problem(t)
			if a.status != tt.status || (tt.field != "" && (len(p.Errors) != 1 || p.Errors[0].Field != tt.field)) {
				t.Fatalf("status %d, body %s", a.status, a.raw)
			}
		})
	}
}
