package client_test

import (
	"crypto/sha256"
	"net/http"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/client"
)

// TestSignedAnswers_AHeadAnswerIsSignedOverTheBodySentNone: a HEAD answer
// carries GET's headers and no body; its signature covers the body sent
// (none), as docs/api.md says, for a success and for refusals.
func TestSignedAnswers_AHeadAnswerIsSignedOverTheBodySentNone(t *testing.T) {
	anonymous := true
	appID, key, secret := exampleApp(access.AppSettings{AnonymousAccess: &anonymous})
	c, err := client.New(server.URL, key, secret, client.WithSigningKeys(publicKeys(t, appID)...))
	if err != nil {
		t.Fatal(err)
	}
	empty := sha256.Sum256(nil)
	for _, tc := range []struct {
		path   string
		secret string
		status int
	}{
		{"/app_context", secret, http.StatusOK},
		{"/app_context", "as_wrong", http.StatusUnauthorized},
		{"/nope", secret, http.StatusNotFound},
	} {
		nonce := "head-" + tc.path + "-" + tc.secret // a verifier refuses a nonce answered before
		req, _ := http.NewRequest(http.MethodHead, server.URL+tc.path, nil)
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("X-Api-Secret", tc.secret)
		req.Header.Set("X-App-Access-Nonce", nonce)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.status {
			t.Fatalf("HEAD %s: %d, want %d", tc.path, res.StatusCode, tc.status)
		}
		if err := client.CheckAnswer(c, req, res, nonce, empty[:], nil, time.Now()); err != nil {
			t.Errorf("HEAD %s (%d): %v", tc.path, res.StatusCode, err)
		}
	}
}
