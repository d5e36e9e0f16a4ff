package access_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// serverAuditService is a service over store whose audit log listens, with
// clock c.
func serverAuditService(t *testing.T, store access.Store, c *clock) *access.Service {
	t.Helper()
	audit := access.NewAuditListener(store, func(err error) { t.Errorf("audit log: %v", err) })
	return access.NewService(store, access.Config{Argon2: cheapArgon2, Now: c.Now, Listeners: []access.EventListener{audit}})
}

func TestServerAuditLog_RecordsAdministratorsSignInsExportImportAndBackup(t *testing.T) {
	ctx := context.Background()
	operator := access.Principal{Kind: access.PrincipalAdminEndpoint, Name: "unix socket"}
	asOperator := access.WithPrincipal(ctx, operator)
	c := &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	store := storetest.SQLite(t)
	svc := serverAuditService(t, store, c)
	app, err := svc.CreateApp(asOperator, access.AppSettings{Name: ptr("game")})
	if err != nil {
		t.Fatal(err)
	}
	code := func(secret string) string {
		c.advance(30 * time.Second) // a step's code is accepted once
		s, err := totp.GenerateCode(secret, c.Now())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	if _, err := svc.CreateAdmin(asOperator, "bob", "a long enough phrase"); err != nil {
		t.Fatal(err)
	}
	c.advance(time.Second) // entries of one millisecond have no order
	en, err := svc.BeginTOTP(asOperator, "bob")
	if err != nil {
		t.Fatal(err)
	}
	c.advance(time.Second)
	if err := svc.ConfirmTOTP(asOperator, "bob", code(en.Secret)); err != nil {
		t.Fatal(err)
	}
	c.advance(time.Second)
	token, _, err := svc.SignInAdmin(access.WithClientAddress(ctx, "198.51.100.7"), "bob", "a long enough phrase", code(en.Secret))
	if err != nil {
		t.Fatal(err)
	}
	c.advance(time.Second)
	asBob := access.WithPrincipal(ctx, access.Principal{Kind: "dashboard", Name: "bob"})
	if err := svc.SignOutAdmin(asBob, token); err != nil {
		t.Fatal(err)
	}
	c.advance(time.Second)
	if err := svc.SignOutAdmin(asBob, token); err != nil { // ended already: nothing to record
		t.Fatal(err)
	}
	c.advance(time.Second)
	if err := svc.DisableTOTP(asOperator, "bob"); err != nil {
		t.Fatal(err)
	}
	c.advance(time.Second)
	if err := svc.DeleteAdmin(asOperator, "bob"); err != nil {
		t.Fatal(err)
	}
	c.advance(time.Second)
	var export bytes.Buffer
	if _, err := svc.Export(asOperator, &export, nil); err != nil {
		t.Fatal(err)
	}
	c.advance(time.Second)
	backup := filepath.Join(t.TempDir(), "copy.db")
	if err := svc.Backup(asOperator, backup); err != nil {
		t.Fatal(err)
	}
	c.advance(time.Second)

	type row struct{ action, target, principal string }
	var got []row
	for _, e := range auditEntries(t, svc, access.ServerAuditLog, access.AuditFilter{}) {
		got = append(got, row{e.Action, e.Target, e.Principal.Kind + " " + e.Principal.Name})
	}
	want := []row{
		{"admin.created", "bob", "admin_endpoint unix socket"},
		{"admin.totp_enabled", "bob", "admin_endpoint unix socket"},
		{"admin.signed_in", "bob", "client 198.51.100.7"},
		{"admin.signed_out", "bob", "dashboard bob"},
		{"admin.totp_disabled", "bob", "admin_endpoint unix socket"},
		{"admin.deleted", "bob", "admin_endpoint unix socket"},
		{"store.exported", "", "admin_endpoint unix socket"},
		{"store.backed_up", backup, "admin_endpoint unix socket"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("server audit log\n got %v\nwant %v", got, want)
	}
	for _, e := range auditEntries(t, svc, app.ID, access.AuditFilter{}) {
		if e.Action != string(access.EventAppCreated) {
			t.Errorf("the application's log has %s", e.Action)
		}
	}
	exported := auditEntries(t, svc, access.ServerAuditLog, access.AuditFilter{Action: "store.exported"})
	if len(exported) != 1 || !bytes.Contains(exported[0].After, []byte(`"complete":true`)) || !bytes.Contains(exported[0].After, []byte(`"records":{"app":1`)) {
		t.Errorf("export entry %+v, after %s", exported, exported[0].After)
	}

	// The export read into an empty store is recorded there.
	dstStore := storetest.SQLite(t)
	dst := serverAuditService(t, dstStore, c)
	if _, err := dst.Import(asOperator, &export); err != nil {
		t.Fatal(err)
	}
	imported := auditEntries(t, dst, access.ServerAuditLog, access.AuditFilter{})
	if len(imported) != 1 || imported[0].Action != "store.imported" || imported[0].Principal != operator {
		t.Errorf("the new store's server log: %+v", imported)
	}
}

func TestServerAuditLog_ThrottledDashboardSignInsAreRecordedOnce(t *testing.T) {
	ctx := access.WithClientAddress(context.Background(), "203.0.113.9")
	c := &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	svc := serverAuditService(t, storetest.SQLite(t), c)
	if _, err := svc.CreateAdmin(ctx, "carol", "a long enough phrase"); err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		_, _, err := svc.SignInAdmin(ctx, "carol", "a wrong guess", "")
		if code := access.CodeOf(err); code != access.CodeInvalidCredentials && code != access.CodeTooManyAttempts {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	got := auditEntries(t, svc, access.ServerAuditLog, access.AuditFilter{Action: string(access.EventLoginThrottled)})
	if len(got) != 1 || got[0].Principal.Kind != access.PrincipalClient {
		t.Errorf("throttle entries %+v, want one", got)
	}
}
