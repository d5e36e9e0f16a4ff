package adminapi_test

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestAdminAPI_UnknownAndContradictoryFieldsAre422NamingTheField(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	app := s.createApp(nil)
	base := "/apps/" + app.ID
	for _, tt := range []struct {
		name, method, path string
		body               any
		field              string
	}{
		{"misspelt setting in PATCH", "PATCH", base, map[string]any{"anonymus_access": true}, "anonymus_access"},
		{"misspelt setting in POST", "POST", "/apps", map[string]any{"name": "x", "devcie_auth": true}, "devcie_auth"},
		{"count with codes", "POST", base + "/licenses", map[string]any{"codes": []string{"SHOP-0004"}, "count": 5}, "count"},
		{"misspelt grant", "POST", base + "/licenses", map[string]any{"minutes": 5, "lifetime": true}, "lifetime"},
		{"misspelt variable value", "PUT", base + "/variables/motd", map[string]any{"valeu": "x"}, "valeu"},
		{"misspelt password", "POST", base + "/users/00000000-0000-0000-0000-000000000000/password", map[string]any{"pasword": "x"}, "pasword"},
		{"misspelt ban reason", "POST", base + "/users/00000000-0000-0000-0000-000000000000/ban", map[string]any{"raeson": "x"}, "raeson"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := s.do(tt.method, tt.path, nil, tt.body)
			p := a.problem(t)
			if a.status != http.StatusUnprocessableEntity || len(p.Errors) != 1 || p.Errors[0].Field != tt.field {
				t.Fatalf("status %d, body %s; want 422 naming %s", a.status, a.raw, tt.field)
			}
		})
	}
	// Nothing was changed or created on the way.
	want := app
	want.APISecret = ""
	got := decode[wire.App](s, http.StatusOK, "GET", base, nil)
	if got.Counts == nil || *got.Counts != (wire.AppCounts{}) {
		t.Fatalf("counts of an empty app: %+v", got.Counts)
	}
	if len(got.SigningKeys) != 1 || !got.SigningKeys[0].Active {
		t.Fatalf("signing keys of a new app: %+v", got.SigningKeys)
	}
	if got.Counts, got.SigningKeys = nil, nil; !reflect.DeepEqual(got, want) {
		t.Fatalf("app changed: %+v", got)
	}
	if apps := decode[wire.Page[wire.App]](s, http.StatusOK, "GET", "/apps", nil); len(apps.Items) != 1 {
		t.Fatalf("%d apps, want 1", len(apps.Items))
	}
	if ls := decode[wire.Page[wire.License]](s, http.StatusOK, "GET", base+"/licenses", nil); len(ls.Items) != 0 {
		t.Fatalf("%d licenses, want 0", len(ls.Items))
	}
}

func TestAdminAPI_BodyThatIsNotAJSONObjectHasOneWording(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for _, body := range []string{"", "  ", "[]", "null", `"x"`, "42", "{", `{"name": "x"} {}`, "name=x"} {
		a := s.do("POST", "/apps", nil, body)
		p := a.problem(t)
		if a.status != http.StatusUnprocessableEntity || len(p.Errors) != 1 || p.Errors[0] != (wire.FieldError{Field: "body", Message: "must be a JSON object"}) {
			t.Errorf("body %q: status %d, %s", body, a.status, a.raw)
		}
	}
	a := s.do("POST", "/apps", nil, `{"name": 5}`)
	if p := a.problem(t); len(p.Errors) != 1 || p.Errors[0] != (wire.FieldError{Field: "name", Message: "must be a string"}) {
		t.Errorf("wrong type: %s", a.raw)
	}
}

func TestAdminAPI_EveryListAnswersOnePageShape(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	app := s.createApp(nil)
	base := "/apps/" + app.ID
	for path, list := range map[string]string{
		"/apps": "apps", base + "/licenses": "licenses", base + "/users": "users",
		base + "/variables": "variables", base + "/files": "files",
	} {
		got := decode[map[string]any](s, http.StatusOK, "GET", path, nil)
		items, isList := got[list].([]any)
		next, hasNext := got["next"]
		if len(got) != 2 || !isList || !hasNext || next != nil || (list != "apps" && len(items) != 0) {
			t.Errorf("GET %s: %v, want {%q: [...], \"next\": null}", path, got, list)
		}
	}
}
