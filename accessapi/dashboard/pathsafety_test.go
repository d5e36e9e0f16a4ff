package dashboard_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
)

// variableForm is a variable's delete form: its action and name field.
var variableForm = regexp.MustCompile(`action="([^"]*/variables/[^"]*)"><input type="hidden" name="csrf" value="[^"]*"><input type="hidden" name="name" value="([^"]*)">`)

// TestVariablesPage_AStrangeNameCannotPointTheDeleteFormAtAnotherAction: a
// variable name made of a path (stored before names were checked, or set
// by a seller key with content:write before) is a form field of the
// delete form, never a part of its URL, so deleting it deletes it and
// rotates nothing; such a name can no longer be set.
func TestVariablesPage_AStrangeNameCannotPointTheDeleteFormAtAnotherAction(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	victim := e.newApp(t, "victim app")
	before, _ := e.svc.App(ctx, victim.ID)
	name := "../../" + victim.ID + "/rotate_secret?"
	k := e.key(t, e.app.ID, access.ScopeContentWrite)
	if code, body := e.call(t, k.Secret, http.MethodPut, "/apps/"+e.app.ID+"/variables/"+url.PathEscape(name), `{"value":"x"}`); code != http.StatusUnprocessableEntity {
		t.Fatalf("a seller key set the variable %q: %d %s", name, code, body)
	}
	if err := e.store.PutVariable(ctx, &access.Variable{AppID: e.app.ID, Name: name, Value: "x"}); err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.signIn()
	_, page := b.get("/admin/apps/" + e.app.ID + "/content")
	m := variableForm.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no delete form with a name field:\n%s", page)
	}
	base, _ := url.Parse(e.srv.URL + "/admin/apps/" + e.app.ID + "/content")
	ref, _ := url.Parse(html.UnescapeString(m[1]))
	target := base.ResolveReference(ref)
	if want := "/admin/apps/" + e.app.ID + "/variables/delete"; target.RequestURI() != want {
		t.Fatalf("the delete form posts to %s, want %s", target.RequestURI(), want)
	}
	if resp, body := b.post(target.RequestURI(), url.Values{"name": {html.UnescapeString(m[2])}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("delete: %d %s", resp.StatusCode, body)
	}
	if vs, _ := e.svc.Variables(ctx, e.app.ID); len(vs) != 0 {
		t.Fatalf("after the delete the application has %+v", vs)
	}
	if after, _ := e.svc.App(ctx, victim.ID); after.SecretHash != before.SecretHash {
		t.Fatal("deleting a variable rotated another application's secret")
	}
}

// TestDashboardAPI_ASessionCannotCallTheAdminEndpointOnlyRoutes: a session
// of the public site cannot export the store (every password hash), import
// into it, write a backup to a path it names, or manage administrators.
func TestDashboardAPI_ASessionCannotCallTheAdminEndpointOnlyRoutes(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signIn()
	dir := t.TempDir()
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/admin/api/export", ""},
		{"POST", "/admin/api/import", "{}"},
		{"POST", "/admin/api/backup", `{"path":"` + dir + `/copy.db"}`},
		{"GET", "/admin/api/admins", ""},
		{"POST", "/admin/api/admins", `{"username":"mallory","password":"a long and unusual pass 7"}`},
	} {
		req, _ := http.NewRequest(tc.method, e.srv.URL+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("X-CSRF-Token", b.csrf)
		if status, body := do(t, b.c, req); status != http.StatusForbidden {
			t.Errorf("%s %s under a dashboard session: %d %.200s, want 403", tc.method, tc.path, status, body)
		}
	}
}
