package access_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
)

func TestListLicenses_FiltersPageEveryLicenseOnce(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	issued, err := f.svc.CreateLicenses(ctx, f.app.ID, access.LicenseRequest{Count: 12, Grant: minutesGrant(5)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[bool][]string{}
	for i, l := range issued {
		used := i%4 == 0
		if used {
			if _, err := f.svc.SignUpWithLicense(ctx, f.app, l.Code, ""); err != nil {
				t.Fatal(err)
			}
		}
		want[used] = append(want[used], l.ID)
	}
	all := append(append([]string(nil), want[true]...), want[false]...)
	for _, ids := range [][]string{want[true], want[false], all} {
		sort.Strings(ids)
	}
	for _, tc := range []struct {
		name string
		used *bool
		want []string
	}{{"all", nil, all}, {"used", ptr(true), want[true]}, {"unused", ptr(false), want[false]}} {
		var got []string
		after := ""
		for {
			p, err := f.svc.ListLicenses(ctx, f.app.ID, access.LicenseFilter{Used: tc.used}, after, 5)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range p.Items {
				if tc.used != nil && (st.Use != nil) != *tc.used {
					t.Fatalf("%s: license %s has use %v", tc.name, st.ID, st.Use)
				}
				got = append(got, st.ID)
			}
			if p.Next == "" {
				break
			}
			after = p.Next
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Fatalf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestListUsers_PrefixPagesWithACursor(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	for _, n := range []string{"Bob", "alice", "Alina", "albert", "carl"} {
		if _, err := f.svc.SignUp(ctx, f.app, access.SignUpRequest{Username: n, Password: "vortex-lamp-71"}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	after := ""
	for {
		p, err := f.svc.ListUsers(ctx, f.app.ID, access.UserFilter{UsernamePrefix: "AL"}, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range p.Items {
			got = append(got, u.Username)
		}
		if p.Next == "" {
			break
		}
		after = p.Next
	}
	if fmt.Sprint(got) != "[albert alice Alina]" {
		t.Fatalf("users %v, want albert, alice, Alina", got)
	}
	_, err := f.svc.ListUsers(ctx, f.app.ID, access.UserFilter{}, "not a cursor", 2)
	wantCode(t, err, access.CodeValidationFailed)

	// The older call pages by the last user's ID and finds one by name.
	first, err := f.svc.Users(ctx, f.app.ID, "", "", 2)
	if err != nil || len(first) != 2 {
		t.Fatalf("first page %v, %v", first, err)
	}
	rest, err := f.svc.Users(ctx, f.app.ID, "", first[1].ID, 10)
	if err != nil || len(rest) != 3 || rest[0].Username != "Alina" {
		t.Fatalf("second page %v, %v", rest, err)
	}
	one, err := f.svc.Users(ctx, f.app.ID, "ALICE", "", 10)
	if err != nil || len(one) != 1 || one[0].Username != "alice" {
		t.Fatalf("by name %v, %v", one, err)
	}
}

func TestAppCounts_FollowSignUpsActivationsAndTime(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f := newFixture(t, access.AppSettings{})
	clock := now
	svc := access.NewService(f.store, access.Config{Argon2: cheapArgon2, Now: func() time.Time { return clock }})
	ctx := context.Background()
	codes := []string{f.license(t, minutesGrant(60)), f.license(t, minutesGrant(60)), f.license(t, access.Grant{GrantsLifetimeAccess: true})}
	f.license(t, minutesGrant(60))
	if _, err := svc.SignUpWithLicense(ctx, f.app, codes[0], ""); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignUp(ctx, f.app, access.SignUpRequest{Username: "dora", Password: "vortex-lamp-71"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ActivateLicense(ctx, f.app, access.ActivateRequest{Code: codes[2], Username: "dora", Password: "vortex-lamp-71"}); err != nil {
		t.Fatal(err)
	}
	c, err := svc.AppCounts(ctx, f.app.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := (access.AppCounts{Licenses: 4, LicensesUsed: 2, LicensesUnused: 2, Users: 2, ActiveMembers: 2}); c != want {
		t.Fatalf("counts %+v, want %+v", c, want)
	}
	clock = now.Add(2 * time.Hour)
	if c, _ = svc.AppCounts(ctx, f.app.ID); c.ActiveMembers != 1 {
		t.Fatalf("%d active members after the hour, want the lifetime one", c.ActiveMembers)
	}
}

func TestUserActivations_PagesTheLedger(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	u, err := f.svc.SignUp(ctx, f.app, access.SignUpRequest{Username: "emil", Password: "vortex-lamp-71"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for range 5 {
		a, err := f.svc.GrantUser(ctx, f.app.ID, u.ID, access.GrantRequest{Grant: minutesGrant(1)})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, a.ID)
	}
	var got []string
	after := ""
	for {
		p, err := f.svc.UserActivations(ctx, f.app.ID, u.ID, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range p.Items {
			got = append(got, a.ID)
		}
		if p.Next == "" {
			break
		}
		after = p.Next
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("activations %v, want %v", got, want)
	}
}

func TestUploadFile_SizeAndHashOfThePlainText(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	key := bytes.Repeat([]byte{7}, access.FileKeySize)
	svc := access.NewService(f.store, access.Config{Argon2: cheapArgon2, FileKey: key})
	ctx := context.Background()
	data := bytes.Repeat([]byte("contents "), 70000)
	sum := sha256.Sum256(data)
	for _, encrypted := range []bool{false, true} {
		file, err := svc.UploadFile(ctx, f.app.ID, access.FileUpload{Name: "a.txt", Encrypted: encrypted}, bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if file.Size != int64(len(data)) || file.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("encrypted %v: size %d, hash %s", encrypted, file.Size, file.SHA256)
		}
		stored, err := svc.FileOf(ctx, f.app.ID, file.ID)
		if err != nil || stored.Size != file.Size || stored.SHA256 != file.SHA256 {
			t.Fatalf("stored metadata %+v, %v", stored, err)
		}
		rc, err := svc.OpenFile(ctx, stored, 100)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil || !bytes.Equal(got, data[100:]) {
			t.Fatalf("encrypted %v: read back %d bytes, %v", encrypted, len(got), err)
		}
	}
}

func TestOpenFile_AWrongFileKeyFailsBeforeAnyByte(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	right := access.NewService(f.store, access.Config{Argon2: cheapArgon2, FileKey: bytes.Repeat([]byte{7}, access.FileKeySize)})
	file, err := right.UploadFile(ctx, f.app.ID, access.FileUpload{Name: "s.bin", Encrypted: true}, bytes.NewReader([]byte("secret bytes")))
	if err != nil {
		t.Fatal(err)
	}
	if file.KeyID == "" || file.KeyID != access.FileKeyID(bytes.Repeat([]byte{7}, access.FileKeySize)) {
		t.Fatalf("key id %q", file.KeyID)
	}
	wrong := access.NewService(f.store, access.Config{Argon2: cheapArgon2, FileKey: bytes.Repeat([]byte{8}, access.FileKeySize)})
	stored, err := wrong.FileOf(ctx, f.app.ID, file.ID)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := wrong.OpenFile(ctx, stored, 0)
	if err == nil {
		rc.Close()
		t.Fatal("a file sealed under another key opened")
	}
	if !strings.Contains(err.Error(), file.KeyID) {
		t.Fatalf("the error does not name the file's key: %v", err)
	}
}
