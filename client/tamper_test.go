package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/client"
)

// These tests put an attacker between a verifying client and a real
// server: a proxy that rewrites what the signature must cover.

// TestDownload_AForgedStartAndAForgedETagNeverBecomeTheFile: the attacker
// answers the first request itself (its own bytes, an ETag made for its
// bytes plus the real rest, then a cut connection, so no signature check
// runs), and on the resume drops If-Range and forges the ETag of the real
// server's signed 206. No call may leave a file that is not the server's.
func TestDownload_AForgedStartAndAForgedETagNeverBecomeTheFile(t *testing.T) {
	ctx := context.Background()
	anonymous := true
	appID, key, secret := exampleApp(access.AppSettings{AnonymousAccess: &anonymous})
	content := bytes.Repeat([]byte("genuine payload "), 4096) // 64 KiB
	f, err := server.UploadFile(ctx, appID, "plugin.bin", content)
	if err != nil {
		t.Fatal(err)
	}
	evil := bytes.Repeat([]byte("EVIL"), 1024)
	forged := sha256.Sum256(append(append([]byte{}, evil...), content[len(evil):]...))
	forgedETag := `"` + hex.EncodeToString(forged[:]) + `"`
	target, _ := url.Parse(server.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(res *http.Response) error {
		res.Header.Set("ETag", forgedETag)
		return nil
	}
	var calls atomic.Int32
	mitm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("ETag", forgedETag)
			w.Header().Set("Content-Length", strconv.Itoa(len(content)))
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(evil)
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
			return
		}
		r.Header.Del("If-Range")
		rp.ServeHTTP(w, r)
	}))
	defer mitm.Close()
	c, err := client.New(mitm.URL, key, secret, client.WithSigningKeys(publicKeys(t, appID)...))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plugin.bin")
	for call := 1; call <= 3; call++ {
		_, err := c.Download(ctx, client.Anonymous, f.ID, path)
		if err == nil {
			got, _ := os.ReadFile(path)
			t.Fatalf("call %d: a download through the attacker succeeded (%d bytes, the server's: %v)", call, len(got), bytes.Equal(got, content))
		}
		if call > 1 && !errors.Is(err, client.ErrBadSignature) {
			t.Fatalf("call %d: %v, want ErrBadSignature", call, err)
		}
	}
}

// TestSignedAnswers_ARewrittenDeviceOrCredentialIsRejected: a proxy that
// sends another device's hardware id (or another user's name) to the
// server gets a genuine signed answer, which the client rejects because
// the request it covers is not the one the client sent.
func TestSignedAnswers_ARewrittenDeviceOrCredentialIsRejected(t *testing.T) {
	ctx := context.Background()
	on := true
	appID, key, secret := exampleApp(access.AppSettings{DeviceAuth: &on})
	keys := publicKeys(t, appID)
	a, err := client.New(server.URL, key, secret, client.WithSigningKeys(keys...), client.WithHardwareID("device-A"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.SignUp(ctx, "owner", "vortex-lamp-71"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ActivateLicense(ctx, licenseCode(appID), "owner", "vortex-lamp-71"); err != nil {
		t.Fatal(err)
	}
	b, _ := client.New(server.URL, key, secret, client.WithSigningKeys(keys...), client.WithHardwareID("device-B"))
	if _, err := b.AppContext(ctx, client.Password{Username: "owner", Password: "vortex-lamp-71"}); err == nil {
		t.Fatal("device B was let in without the proxy")
	}
	target, _ := url.Parse(server.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	mitm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("X-Hardware-Id", "device-A")
		if r.Body != nil {
			body, _ := io.ReadAll(r.Body)
			body = bytes.ReplaceAll(body, []byte("device-B"), []byte("device-A"))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		rp.ServeHTTP(w, r)
	}))
	defer mitm.Close()
	bp, _ := client.New(mitm.URL, key, secret, client.WithSigningKeys(keys...), client.WithHardwareID("device-B"))
	for name, call := range map[string]func() error{
		"app_context with password headers": func() error {
			_, err := bp.AppContext(ctx, client.Password{Username: "owner", Password: "vortex-lamp-71"})
			return err
		},
		"login (the device in the body)": func() error { _, err := bp.Login(ctx, "owner", "vortex-lamp-71"); return err },
	} {
		if err := call(); !errors.Is(err, client.ErrBadSignature) {
			t.Errorf("%s through a proxy that swaps the device: %v, want ErrBadSignature", name, err)
		}
	}
}

// slowWriter delays each write of an answer: a slow link.
type slowWriter struct{ http.ResponseWriter }

func (s slowWriter) Write(p []byte) (int, error) {
	time.Sleep(300 * time.Millisecond)
	n, err := s.ResponseWriter.Write(p)
	s.ResponseWriter.(http.Flusher).Flush()
	return n, err
}

// TestDownload_AnHonestDownloadSlowerThanTheMaxAgeSucceeds: the age bound
// applies when the answer's headers come, not when its last byte does.
func TestDownload_AnHonestDownloadSlowerThanTheMaxAgeSucceeds(t *testing.T) {
	ctx := context.Background()
	anonymous := true
	appID, key, secret := exampleApp(access.AppSettings{AnonymousAccess: &anonymous})
	content := bytes.Repeat([]byte("x"), 12*32<<10)
	f, err := server.UploadFile(ctx, appID, "big.bin", content)
	if err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(server.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { rp.ServeHTTP(slowWriter{w}, r) }))
	defer slow.Close()
	c, err := client.New(slow.URL, key, secret, client.WithSigningKeys(publicKeys(t, appID)...), client.WithMaxResponseAge(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.bin")
	start := time.Now()
	if _, err := c.Download(ctx, client.Anonymous, f.ID, path); err != nil {
		t.Fatalf("a genuine download of %v refused: %v", time.Since(start).Round(time.Millisecond), err)
	}
	if took := time.Since(start); took < 2*time.Second {
		t.Fatalf("the download took %v, not longer than the 2s bound: the test proves nothing", took)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, content) {
		t.Fatal("the downloaded file is not the uploaded one")
	}
}

// TestNew_RefusesASigningKeyOfTheWrongLength: a key that is not 32 bytes
// (a mistyped or cut base64 string) fails New instead of a panic in
// ed25519.Verify on the first answer that names it.
func TestNew_RefusesASigningKeyOfTheWrongLength(t *testing.T) {
	if _, err := client.New("http://localhost:1", "k", "s", client.WithSigningKeys(make([]byte, 30))); err == nil {
		t.Fatal("New accepted a 30-byte signing key")
	}
}

// TestSignedAnswers_AHeaderValueWithEdgeSpacesStillVerifies: the transport
// sends header values without their surrounding spaces, and the request
// binding covers them so: a refusal of a password that ends in a space is
// a verified refusal, not a bad signature.
func TestSignedAnswers_AHeaderValueWithEdgeSpacesStillVerifies(t *testing.T) {
	appID, key, secret := exampleApp(access.AppSettings{})
	c, err := client.New(server.URL, key, secret, client.WithSigningKeys(publicKeys(t, appID)...))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.AppContext(context.Background(), client.Password{Username: " nobody", Password: "secret "})
	if !errors.Is(err, client.ErrInvalidCredentials) {
		t.Fatalf("a password with a trailing space: %v, want a verified ErrInvalidCredentials", err)
	}
}
