package clientapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// TestAppContextJSON_IsWhatTheEncoderWrites: the body assembled from the
// cached application part is byte for byte json.Encoder's, before and
// after the content changes, by an encoder used again and again.
func TestAppContextJSON_IsWhatTheEncoderWrites(t *testing.T) {
	h := &Handler{}
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	end := now.Add(time.Hour)
	app := &access.App{ID: "a1", Name: `Shop <"&"> ünïcode`}
	c1 := &access.AppContent{Variables: []access.Variable{{Name: "motd", Value: "<b>hi</b> & \u2028"}},
		Files: []access.File{{ID: "f1", Name: "x.bin", MimeType: "application/octet-stream", IsEncrypted: true}}}
	c2 := &access.AppContent{}
	user := &access.UserView{ID: "u1", Username: "alice", Membership: access.Membership{ExpiresAt: &end}}
	e := h.appContextEncoder() // one encoder for every case: it is reused
	for _, tc := range []struct {
		name    string
		content *access.AppContent
		user    *access.UserView
	}{{"user", c1, user}, {"anonymous", c1, nil}, {"after a change", c2, user}} {
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(wire.AppContext{Application: applicationView(app, tc.content), User: userView(tc.user, now)}); err != nil {
			t.Fatal(err)
		}
		for range 2 { // encoded, then from the cache
			got, err := h.appContextJSON(e, app, tc.content, tc.user, now)
			if err != nil || !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("%s: %s\nwant %s (%v)", tc.name, got, want.Bytes(), err)
			}
		}
	}
}

// TestHeaderNames_AreCanonical: headerValue reads the header names of this
// package without canonicalizing them, so each must be canonical already.
func TestHeaderNames_AreCanonical(t *testing.T) {
	for _, name := range []string{HeaderAPIKey, HeaderAPISecret, HeaderUsername, HeaderPassword,
		HeaderLicenseCode, HeaderHardwareID, headerAuthorization, HeaderNonce, HeaderSignature} {
		if c := http.CanonicalHeaderKey(name); c != name {
			t.Errorf("header name %q is not canonical (%q)", name, c)
		}
	}
}
