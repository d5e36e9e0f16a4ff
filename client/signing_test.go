package client_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/client"
)

// publicKeys are an application's published signing keys, as GET
// /app_access/apps/{id} shows them.
func publicKeys(t *testing.T, appID string) []ed25519.PublicKey {
	t.Helper()
	keys, err := server.Service.SigningKeys(context.Background(), appID)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]ed25519.PublicKey, len(keys))
	for i, k := range keys {
		out[i] = k.PublicKey
	}
	return out
}

func TestSignedAnswers_EveryAnswerVerifiesRefusalsAndDownloadsIncluded(t *testing.T) {
	ctx := context.Background()
	appID, key, secret := exampleApp(access.AppSettings{})
	c, err := client.New(server.URL, key, secret, client.WithSigningKeys(publicKeys(t, appID)...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SignUp(ctx, "signed", "vortex-lamp-71"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Login(ctx, "signed", "wrong-password-1"); !errors.Is(err, client.ErrInvalidCredentials) {
		t.Fatalf("a signed refusal: %v, want ErrInvalidCredentials", err)
	}
	code := licenseCode(appID)
	if _, err := c.ActivateLicense(ctx, code, "signed", "vortex-lamp-71"); err != nil {
		t.Fatal(err)
	}
	s, err := c.Login(ctx, "signed", "vortex-lamp-71")
	if err != nil {
		t.Fatal(err)
	}
	if ac, err := c.AppContext(ctx, client.Token(s.Token)); err != nil || ac.User.Username != "signed" {
		t.Fatalf("app context %+v, %v", ac, err)
	}
	tok, err := c.OfflineToken(ctx, client.Token(s.Token))
	if err != nil {
		t.Fatal(err)
	}
	if l, err := client.VerifyOfflineToken(tok.Token, publicKeys(t, appID), "", time.Now()); err != nil || l.Username != "signed" || !l.Membership.IsActive {
		t.Fatalf("offline token %+v, %v", l, err)
	}

	content := bytes.Repeat([]byte("signed bytes "), 20000)
	f, err := server.UploadFile(ctx, appID, "data.bin", content)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "data.bin")
	// A resumed download: the answer is a range, signed over its bytes.
	if err := os.WriteFile(path+".part", content[:70000], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".part.etag", []byte(`"`+f.SHA256+`"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Download(ctx, client.Token(s.Token), f.ID, path); err != nil || n != int64(len(content)) {
		t.Fatalf("resumed download: %d bytes, %v", n, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Download(ctx, client.Token(s.Token), f.ID, path); err != nil || n != int64(len(content)) {
		t.Fatalf("whole download: %d bytes, %v", n, err)
	}
}

// proxy is an attacker between the client and the real server.
type proxy struct {
	mu sync.Mutex
	// tamper changes an answer's body, keeping its headers.
	tamper func(body []byte) []byte
	// replay answers every request with the first answer recorded.
	replay   bool
	recorded *http.Response
	body     []byte
}

func (p *proxy) start(t *testing.T) string {
	t.Helper()
	target, _ := url.Parse(server.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(res *http.Response) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			return err
		}
		switch {
		case p.replay && p.recorded != nil:
			res.StatusCode, res.Header, body = p.recorded.StatusCode, p.recorded.Header.Clone(), p.body
		case p.replay:
			p.recorded, p.body = res, body
		case p.tamper != nil:
			body = p.tamper(body)
		}
		res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		res.Header.Del("Content-Length")
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestSignedAnswers_TamperedReplayedStaleOrWronglyKeyedAnswersAreRejected(t *testing.T) {
	ctx := context.Background()
	anonymous := true
	appID, key, secret := exampleApp(access.AppSettings{AnonymousAccess: &anonymous})
	if err := server.SetVariable(ctx, appID, "motd", "the real message"); err != nil {
		t.Fatal(err)
	}
	keys := publicKeys(t, appID)
	other, _, _ := ed25519.GenerateKey(nil)
	for _, tc := range []struct {
		name  string
		proxy *proxy
		keys  []ed25519.PublicKey
		clock time.Duration // the client's clock ahead of the server's
		ok    bool
	}{
		{name: "an honest proxy", proxy: &proxy{}, keys: keys, ok: true},
		{name: "a rotated key set still verifies", proxy: &proxy{}, keys: []ed25519.PublicKey{other, keys[0]}, ok: true},
		{name: "a tampered body", proxy: &proxy{tamper: func(b []byte) []byte {
			return bytes.Replace(b, []byte("the real message"), []byte("a fake message!!"), 1)
		}}, keys: keys},
		{name: "a replayed answer (another request's nonce)", proxy: &proxy{replay: true}, keys: keys},
		{name: "the wrong key", proxy: &proxy{}, keys: []ed25519.PublicKey{other}},
		{name: "an answer older than the bound", proxy: &proxy{}, keys: keys, clock: 10 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := client.New(tc.proxy.start(t), key, secret, client.WithSigningKeys(tc.keys...))
			if err != nil {
				t.Fatal(err)
			}
			client.SetClock(c, func() time.Time { return time.Now().Add(tc.clock) })
			// The first call is recorded by the replaying proxy; the
			// second is the one checked.
			for i := range 2 {
				ac, err := c.AppContext(ctx, client.Anonymous)
				if tc.proxy.replay && i == 0 {
					continue
				}
				if tc.ok {
					if err != nil || len(ac.Application.Variables) != 1 || ac.Application.Variables[0].Value != "the real message" {
						t.Fatalf("answer %+v, %v", ac, err)
					}
					continue
				}
				if !errors.Is(err, client.ErrBadSignature) {
					t.Fatalf("error %v, want ErrBadSignature", err)
				}
			}
		})
	}
	t.Run("an unsigned answer, signature removed", func(t *testing.T) {
		strip := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"application":{"id":"x","name":"fake","variables":[],"files":[]},"user":null}`))
		}))
		defer strip.Close()
		c, err := client.New(strip.URL, key, secret, client.WithSigningKeys(keys...))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.AppContext(ctx, client.Anonymous); !errors.Is(err, client.ErrBadSignature) || !strings.Contains(err.Error(), "not signed") {
			t.Fatalf("error %v, want ErrBadSignature", err)
		}
	})
}

// TestSignedAnswers_ConcurrentCallsVerifyInBatches: answers signed
// together (one signature over a Merkle root) each verify with their proof.
func TestSignedAnswers_ConcurrentCallsVerifyInBatches(t *testing.T) {
	anonymous := true
	appID, key, secret := exampleApp(access.AppSettings{AnonymousAccess: &anonymous})
	c, err := client.New(server.URL, key, secret, client.WithSigningKeys(publicKeys(t, appID)...))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range 10 {
				if _, err := c.AppContext(context.Background(), client.Anonymous); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
