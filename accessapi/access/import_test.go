package access_test

import (
	"bytes"
	"context"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// TestImport_AnExportEditedWithoutTheFileKeyIsRefused: someone who can
// edit an export at rest (a backup bucket) swaps a victim's password hash
// for their own and recomputes the end record: with a plain SHA-256 or an
// HMAC under another key the import is refused; only the file key's HMAC
// (which the editor does not have) makes a file import, and an export
// imports under the same file key only.
func TestImport_AnExportEditedWithoutTheFileKeyIsRefused(t *testing.T) {
	ctx := context.Background()
	fileKey := bytes.Repeat([]byte{7}, 32)
	src := access.NewService(storetest.SQLite(t), access.Config{Argon2: cheapArgon2, FileKey: fileKey})
	app, err := src.CreateApp(ctx, access.AppSettings{Name: ptr("moving")})
	if err != nil {
		t.Fatal(err)
	}
	for u, pw := range map[string]string{"victim": "quiet-harbor-93", "mallory": "vortex-lamp-71"} {
		if _, err := src.SignUp(ctx, &app.App, access.SignUpRequest{Username: u, Password: pw}); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := src.Export(ctx, &buf, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	hashOf := regexp.MustCompile(`"PasswordHash":"([^"]+)"`)
	var mallory string
	for _, l := range lines {
		if strings.Contains(l, `"type":"account"`) && strings.Contains(l, `"mallory"`) {
			mallory = hashOf.FindStringSubmatch(l)[1]
		}
	}
	edited := append([]string(nil), lines[:len(lines)-1]...)
	for i, l := range edited {
		if strings.Contains(l, `"type":"account"`) && strings.Contains(l, `"victim"`) {
			edited[i] = hashOf.ReplaceAllLiteralString(l, `"PasswordHash":"`+mallory+`"`)
		}
	}
	body := strings.Join(edited, "\n") + "\n"
	mac := func(key []byte) string {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(body))
		return hex.EncodeToString(m.Sum(nil))
	}
	plain := sha256.Sum256([]byte(body))
	derived := func(fk []byte) []byte {
		k, err := hkdf.Key(sha256.New, fk, nil, "app-access export v2", 32)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	end := func(field, sum string) string {
		return body + fmt.Sprintf(`{"type":"end","end":{"records":%d,%q:%q}}`+"\n", len(edited), field, sum)
	}
	for _, tc := range []struct {
		name    string
		file    string
		fileKey []byte
		ok      bool
	}{
		{"edited, plain SHA-256 (the old format's end)", end("sha256", hex.EncodeToString(plain[:])), fileKey, false},
		{"edited, HMAC under another file key", end("hmac_sha256", mac(derived(bytes.Repeat([]byte{8}, 32)))), fileKey, false},
		{"edited, HMAC under the file key itself, not its derived key", end("hmac_sha256", mac(fileKey)), fileKey, false},
		{"edited by a holder of the file key", end("hmac_sha256", mac(derived(fileKey))), fileKey, true},
		{"as exported, under the same file key", buf.String(), fileKey, true},
		{"as exported, under another file key", buf.String(), bytes.Repeat([]byte{8}, 32), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := access.NewService(storetest.SQLite(t), access.Config{Argon2: cheapArgon2, FileKey: tc.fileKey})
			_, err := dst.Import(ctx, strings.NewReader(tc.file))
			if (err == nil) != tc.ok {
				t.Fatalf("import: %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
