package caddymodule

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/appaccess/appaccess/client"
)

// publishedKeys are an application's signing keys as GET /apps/{id} shows them.
func publishedKeys(t *testing.T, a app) []ed25519.PublicKey {
	t.Helper()
	r := request(t, "GET", adminBase+"/apps/"+a.id, nil, nil)
	expect(t, r, 200, "")
	var keys []ed25519.PublicKey
	for _, k := range r.body["signing_keys"].([]any) {
		pub, err := base64.StdEncoding.DecodeString(k.(map[string]any)["public_key"].(string))
		if err != nil || len(pub) != ed25519.PublicKeySize {
			t.Fatalf("public key %v: %v", k, err)
		}
		keys = append(keys, pub)
	}
	return keys
}

func TestSignedAnswers_VerifiedThroughCaddyAcrossARotation(t *testing.T) {
	startServer(t, "", "")
	ctx := context.Background()
	a := createApp(t, map[string]any{"offline_token_ttl": "2h"})
	old := publishedKeys(t, a)
	c, err := client.New(apiBase, a.key, a.secret, client.WithSigningKeys(old...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SignUp(ctx, "signed", "vortex-lamp-71"); err != nil {
		t.Fatal(err)
	}
	code := issueCode(t, a, map[string]any{"grants_lifetime_access": true})
	if _, err := c.ActivateLicense(ctx, code, "signed", "vortex-lamp-71"); err != nil {
		t.Fatal(err)
	}
	s, err := c.Login(ctx, "signed", "vortex-lamp-71")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := c.OfflineToken(ctx, client.Token(s.Token))
	if err != nil {
		t.Fatal(err)
	}
	if l, err := client.VerifyOfflineToken(tok.Token, old, "", time.Now()); err != nil || !l.Membership.IsLifetime ||
		time.Until(tok.ValidUntil) > 2*time.Hour || time.Until(tok.ValidUntil) < 2*time.Hour-time.Minute {
		t.Fatalf("offline token %+v valid until %v: %v", l, tok.ValidUntil, err)
	}

	// A rotation: the new key signs; a client that knows only the old
	// key refuses the answers, one that ships both keeps working.
	r := request(t, "POST", adminBase+"/apps/"+a.id+"/signing_keys", nil, nil)
	expect(t, r, 201, "")
	both := publishedKeys(t, a)
	if len(both) != 2 || r.str("id") != client.KeyID(both[1]) {
		t.Fatalf("after rotating: %d keys, new %s", len(both), r.raw)
	}
	if _, err := c.AppContext(ctx, client.Token(s.Token)); !errors.Is(err, client.ErrBadSignature) {
		t.Fatalf("a client with only the old key: %v, want ErrBadSignature", err)
	}
	c2, _ := client.New(apiBase, a.key, a.secret, client.WithSigningKeys(both...))
	if ac, err := c2.AppContext(ctx, client.Token(s.Token)); err != nil || ac.User.Username != "signed" {
		t.Fatalf("a client with both keys: %+v, %v", ac, err)
	}
	// The token signed by the old key verifies while the old key is
	// shipped; retiring it removes it from the published set.
	expect(t, request(t, "DELETE", adminBase+"/apps/"+a.id+"/signing_keys/"+client.KeyID(old[0]), nil, nil), 204, "")
	expect(t, request(t, "DELETE", adminBase+"/apps/"+a.id+"/signing_keys/"+client.KeyID(both[1]), nil, nil), 409, "conflict")
	if keys := publishedKeys(t, a); len(keys) != 1 || !keys[0].Equal(both[1]) {
		t.Fatalf("after retiring: %d keys", len(keys))
	}

	// Unknown paths and wrong secrets are signed when the key names the
	// application; nothing is signed without one.
	for _, tc := range []struct {
		name    string
		path    string
		headers map[string]string
		signed  bool
	}{
		{"unknown path", "/nope", a.headers(), true},
		{"wrong secret", "/app_context", map[string]string{"x-api-key": a.key, "x-api-secret": "as_wrong"}, true},
		{"no key", "/app_context", nil, false},
		{"unknown key", "/app_context", map[string]string{"x-api-key": "ak_unknown", "x-api-secret": "as_wrong"}, false},
	} {
		r := request(t, "GET", apiBase+tc.path, tc.headers, nil)
		if got := r.header.Get("App-Access-Signature") != ""; got != tc.signed || r.status < http.StatusBadRequest {
			t.Errorf("%s: %d, signed %v, want %v", tc.name, r.status, got, tc.signed)
		}
	}
}

// TestSignedAnswers_UnderAPathPrefixCoverTheTargetTheClientSent: with the
// API mounted by handle_path, the client's target (with the prefix) is the
// one signed.
func TestSignedAnswers_UnderAPathPrefixCoverTheTargetTheClientSent(t *testing.T) {
	s := &server{t: t, tester: newTester(t), store: defaultStore(t)}
	s.tester.InitServer(fmt.Sprintf(`{
	%s
	app_access {
		%s
	}
}

:%d {
	handle_path /api/* {
		app_access_api
	}
}
`, globalOptions(), s.store, apiPort), "caddyfile")
	a := createApp(t, map[string]any{"anonymous_access": true})
	c, err := client.New(apiBase+"/api", a.key, a.secret, client.WithSigningKeys(publishedKeys(t, a)...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppContext(context.Background(), client.Anonymous); err != nil {
		t.Fatal(err)
	}
}
