package adminclient_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminapi"
	"github.com/appaccess/appaccess/accessapi/adminapi/adminapitest"
	"github.com/appaccess/appaccess/accessapi/adminclient"
	"github.com/appaccess/appaccess/accessapi/openapi/openapitest"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// server is the real management API over the real store.
type server struct{ *adminapitest.Server }

func newServer(t *testing.T) server { return server{adminapitest.New(t)} }

// client is a client of s whose every answer is checked against the
// management API's OpenAPI document.
func (s server) client(t *testing.T) *adminclient.Client {
	t.Helper()
	v, err := openapitest.Management()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &openapitest.Transport{
		Documents: map[string]*openapitest.Validator{s.URL + "/": v},
		Report:    func(err error) { t.Error(err) },
	}}
	c, err := adminclient.New(s.URL, adminclient.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func ptr[T any](v T) *T { return &v }

func TestClient_AppsRoundTrip(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.client(t), context.Background()
	created := must[*wire.App](t)(c.CreateApp(ctx, wire.AppSettings{Name: ptr("Shop"), DeviceAuth: ptr(true), SessionTTL: ptr("2h")}))
	if created.APISecret == "" || !created.DeviceAuth || created.SessionTTL != "2h" {
		t.Fatalf("created %+v", created)
	}
	updated := must[*wire.App](t)(c.UpdateApp(ctx, created.ID, wire.AppSettings{AnonymousAccess: ptr(true)}))
	if !updated.AnonymousAccess || updated.Name != "Shop" || updated.APISecret != "" {
		t.Fatalf("updated %+v", updated)
	}
	shown := must[*wire.App](t)(c.App(ctx, created.ID))
	if shown.Counts == nil {
		t.Fatal("show has no counts")
	}
	if len(shown.SigningKeys) != 1 || !shown.SigningKeys[0].Active || shown.SigningKeys[0].Algorithm != "Ed25519" {
		t.Fatalf("signing keys %+v", shown.SigningKeys)
	}
	first := shown.SigningKeys[0].ID
	next := must[*wire.SigningKey](t)(c.RotateSigningKey(ctx, created.ID))
	if !next.Active || next.ID == first {
		t.Fatalf("rotated to %+v", next)
	}
	if err := c.RetireSigningKey(ctx, created.ID, next.ID); err == nil {
		t.Fatal("the active key was retired")
	}
	if err := c.RetireSigningKey(ctx, created.ID, first); err != nil {
		t.Fatal(err)
	}
	if shown.Counts, shown.SigningKeys = nil, nil; !reflect.DeepEqual(shown, updated) {
		t.Fatalf("shown %+v, want %+v", shown, updated)
	}
	if page := must[*wire.Page[wire.App]](t)(c.Apps(ctx)); len(page.Items) != 1 || page.Items[0].ID != created.ID || page.Next != nil {
		t.Fatalf("listed %+v", page)
	}
	if rot := must[*wire.SecretRotation](t)(c.RotateSecret(ctx, created.ID)); rot.APISecret == "" || rot.APISecret == created.APISecret {
		t.Fatalf("rotated %+v", rot)
	}
	if h := must[*wire.Health](t)(c.Health(ctx)); h.Status != "ok" {
		t.Fatalf("health %+v", h)
	}
	if err := c.DeleteApp(ctx, created.ID); err != nil {
		t.Fatal(err)
	}
	_, err := c.App(ctx, created.ID)
	var p *adminclient.Problem
	if !errors.As(err, &p) || p.Status != http.StatusNotFound || p.Code != "not_found" || p.Detail == "" {
		t.Fatalf("deleted app: %v", err)
	}
}

func TestClient_LicensesRoundTripWithoutACodeInAnyURI(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.client(t), context.Background()
	app := must[*wire.App](t)(c.CreateApp(ctx, wire.AppSettings{Name: ptr("Shop")}))
	issued := must[*wire.IssuedLicenses](t)(c.CreateLicenses(ctx, app.ID, wire.LicenseRequest{Count: ptr(3), Minutes: ptr(int64(60)), Note: "batch"}))
	if len(issued.Licenses) != 3 || issued.Licenses[0].Code == "" {
		t.Fatalf("issued %+v", issued)
	}
	code := issued.Licenses[2].Code
	found := must[*wire.License](t)(c.LookupLicense(ctx, app.ID, code))
	if found.ID != issued.Licenses[2].ID || found.Code != "" {
		t.Fatalf("looked up %+v", found)
	}
	page := must[*wire.Page[wire.License]](t)(c.Licenses(ctx, app.ID, adminclient.LicenseQuery{Used: ptr(false), Limit: 2}))
	if len(page.Items) != 2 || page.Next == nil {
		t.Fatalf("first page %+v", page)
	}
	rest := must[*wire.Page[wire.License]](t)(c.Licenses(ctx, app.ID, adminclient.LicenseQuery{After: *page.Next, Limit: 2}))
	if len(rest.Items) != 1 || rest.Next != nil {
		t.Fatalf("second page %+v", rest)
	}
	if got := must[*wire.License](t)(c.License(ctx, app.ID, found.ID)); got.ID != found.ID || got.Note != "batch" {
		t.Fatalf("shown %+v", got)
	}
	if err := c.DeleteLicense(ctx, app.ID, found.ID); err != nil {
		t.Fatal(err)
	}
	for _, uri := range s.RequestURIs() {
		for _, l := range issued.Licenses {
			if strings.Contains(uri, l.Code) || strings.Contains(strings.ToLower(uri), strings.ToLower(l.Code)) {
				t.Fatalf("request URI %q carries a license code", uri)
			}
		}
	}
}

func TestClient_UsersRoundTrip(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.client(t), context.Background()
	created := must[*wire.App](t)(c.CreateApp(ctx, wire.AppSettings{Name: ptr("Shop"), DeviceAuth: ptr(true)}))
	app := must[*access.App](t)(s.Service.App(ctx, created.ID))
	u := must[*access.UserView](t)(s.Service.SignUp(ctx, app, access.SignUpRequest{Username: "sam", Password: "glass tulip 42", HardwareID: "hw-1"}))

	entry := must[*wire.LedgerEntry](t)(c.Grant(ctx, app.ID, u.ID, wire.GrantRequest{Minutes: ptr(int64(30)), Note: "support"}))
	if entry.Type != "grant" || *entry.Minutes != 30 || entry.Note != "support" {
		t.Fatalf("granted %+v", entry)
	}
	if err := c.ResetPassword(ctx, app.ID, u.ID, "a new passphrase 7"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Service.Login(ctx, app, access.LoginRequest{
		Credentials: access.Credentials{Username: "sam", Password: "a new passphrase 7", HardwareID: "hw-1"}}); err != nil {
		t.Fatalf("login with the reset password: %v", err)
	}
	if err := c.BanUser(ctx, app.ID, u.ID, wire.BanRequest{Reason: "spam"}); err != nil {
		t.Fatal(err)
	}
	d := must[*wire.UserDetail](t)(c.User(ctx, app.ID, u.ID))
	if !d.Banned || *d.BanReason != "spam" || !d.Membership.IsActive || len(d.Devices) != 1 || len(d.Activations) != 1 {
		t.Fatalf("detail %+v", d)
	}
	for name, act := range map[string]func(context.Context, string, string) error{
		"unban": c.UnbanUser, "reset devices": c.ResetDevices, "end sessions": c.EndSessions,
	} {
		if err := act(ctx, app.ID, u.ID); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if d := must[*wire.UserDetail](t)(c.User(ctx, app.ID, u.ID)); d.Banned || len(d.Devices) != 0 {
		t.Fatalf("after unban and reset %+v", d)
	}
	if page := must[*wire.Page[wire.UserSummary]](t)(c.Users(ctx, app.ID, adminclient.UserQuery{Username: "SAM"})); len(page.Items) != 1 || page.Items[0].ID != u.ID {
		t.Fatalf("found %+v", page)
	}
	if err := c.DeleteUser(ctx, app.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	if page := must[*wire.Page[wire.UserSummary]](t)(c.Users(ctx, app.ID, adminclient.UserQuery{})); len(page.Items) != 0 {
		t.Fatalf("users after delete %+v", page)
	}
}

func TestClient_VariablesAndFilesRoundTrip(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.client(t), context.Background()
	app := must[*wire.App](t)(c.CreateApp(ctx, wire.AppSettings{Name: ptr("Shop")}))
	if v := must[*wire.Variable](t)(c.SetVariable(ctx, app.ID, "motd", "hello there")); v.Value != "hello there" {
		t.Fatalf("set %+v", v)
	}
	if page := must[*wire.Page[wire.Variable]](t)(c.Variables(ctx, app.ID)); len(page.Items) != 1 || page.Items[0].Name != "motd" {
		t.Fatalf("variables %+v", page)
	}
	if err := c.DeleteVariable(ctx, app.ID, "motd"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		up   adminclient.Upload
		want string
	}{
		{adminclient.Upload{Name: "notes.txt"}, "text/plain; charset=utf-8"},
		{adminclient.Upload{Name: "data.txt", MimeType: "text/csv"}, "text/csv"},
	} {
		f := must[*wire.FileInfo](t)(c.UploadFile(ctx, app.ID, tt.up, strings.NewReader("file contents")))
		if f.MimeType != tt.want || f.Size != 13 || f.Name != tt.up.Name {
			t.Fatalf("uploaded %+v, want type %s", f, tt.want)
		}
	}
	files := must[*wire.Page[wire.FileInfo]](t)(c.Files(ctx, app.ID))
	if len(files.Items) != 2 {
		t.Fatalf("files %+v", files)
	}
	if err := c.DeleteFile(ctx, app.ID, files.Items[0].ID); err != nil {
		t.Fatal(err)
	}
}

func TestClient_ValidationProblemCarriesTheFields(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c := s.client(t)
	_, err := c.CreateApp(context.Background(), wire.AppSettings{Name: ptr("x"), MaxDevices: ptr(0)})
	var p *adminclient.Problem
	if !errors.As(err, &p) || p.Status != http.StatusUnprocessableEntity || p.Code != "validation_failed" ||
		len(p.Fields) != 1 || p.Fields[0].Field != "max_devices" {
		t.Fatalf("error %#v", err)
	}
	if !strings.Contains(err.Error(), "max_devices must be 1 to 100") {
		t.Fatalf("message %q", err)
	}
}

func TestClient_CannotConnectNamesTheAddress(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	c, err := adminclient.New(addr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Apps(context.Background())
	var ce *adminclient.ConnectError
	if !errors.As(err, &ce) || ce.Address != addr || !strings.Contains(err.Error(), addr) {
		t.Fatalf("error %v, want one naming %s", err, addr)
	}
}

func TestClient_AcceptsTheSchemeAndTheBareForm(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for _, addr := range []string{s.URL, strings.TrimPrefix(s.URL, "http://"), s.URL + "/", "tcp/" + strings.TrimPrefix(s.URL, "http://")} {
		c, err := adminclient.New(addr)
		if err != nil {
			t.Fatalf("New(%q): %v", addr, err)
		}
		if _, err := c.Health(context.Background()); err != nil {
			t.Fatalf("%q: %v", addr, err)
		}
	}
}

func TestClient_ReachesAUnixSocket(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	path := filepath.Join(t.TempDir(), "admin.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: adminapi.NewHandler(adminapi.DefaultPrefix, func() (*access.Service, error) { return s.Service, nil }, nil)}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	c, err := adminclient.New("unix/" + path + "|0600")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestClient_RefusesAddressesItCannotUse(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"", "ftp://localhost:2019", "localhost", "unix/"} {
		if _, err := adminclient.New(addr); err == nil {
			t.Errorf("New(%q) succeeded", addr)
		}
	}
}

func TestClient_WithPrefixReachesAHandlerMountedElsewhere(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	srv := httptest.NewServer(adminapi.NewHandler("/manage", func() (*access.Service, error) { return s.Service, nil }, nil))
	t.Cleanup(srv.Close)
	for _, tt := range []struct {
		opts []adminclient.Option
		ok   bool
	}{
		{[]adminclient.Option{adminclient.WithPrefix("/manage/")}, true},
		{nil, false}, // /app_access is not there
	} {
		c, err := adminclient.New(srv.URL, tt.opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Health(context.Background())
		var p *adminclient.Problem
		if (err == nil) != tt.ok || (err != nil && (!errors.As(err, &p) || p.Status != http.StatusNotFound)) {
			t.Fatalf("options %d: %v", len(tt.opts), err)
		}
	}
}
