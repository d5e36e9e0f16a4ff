package client_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/openapi/openapitest"
	"github.com/appaccess/appaccess/client"
)

// newClient is a client of a new application whose every answer is
// checked against the OpenAPI document.
func newClient(t *testing.T, settings access.AppSettings, opts ...client.Option) (*client.Client, string) {
	t.Helper()
	appID, key, secret := exampleApp(settings)
	c, err := client.New(server.URL, key, secret, append([]client.Option{client.WithHTTPClient(checkedHTTP(t))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, appID
}

// checkedHTTP is an HTTP client whose every answer from the test server
// is checked against the OpenAPI document.
func checkedHTTP(t *testing.T) *http.Client {
	t.Helper()
	v, err := openapitest.Client()
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &openapitest.Transport{
		Documents: map[string]*openapitest.Validator{server.URL: v},
		Report:    func(err error) { t.Error(err) },
	}}
}

func TestNew_RefusesABadBaseURLOrMissingCredentials(t *testing.T) {
	for _, tc := range []struct{ url, key, secret string }{
		{"localhost:8080", "k", "s"},
		{"ftp://example.com", "k", "s"},
		{"http://", "k", "s"},
		{"http://localhost:8080", "", "s"},
		{"http://localhost:8080", "k", ""},
	} {
		if _, err := client.New(tc.url, tc.key, tc.secret); err == nil {
			t.Errorf("New(%q, %q, %q) succeeded", tc.url, tc.key, tc.secret)
		}
	}
}

// TestErrors_EachRefusalWrapsItsSentinel: refusals of the real server
// arrive as *Error with their status and code, wrapping the code's
// sentinel.
func TestErrors_EachRefusalWrapsItsSentinel(t *testing.T) {
	ctx := context.Background()
	c, appID := newClient(t, access.AppSettings{})
	if _, err := c.SignUp(ctx, "bob", "vortex-lamp-71"); err != nil {
		t.Fatal(err)
	}
	used := licenseCode(appID)
	if _, err := c.SignUpWithLicenseCode(ctx, used); err != nil {
		t.Fatal(err)
	}
	wrongApp, err := client.New(server.URL, "no-such-key", "no-such-secret")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		call     func() error
		status   int
		code     string
		sentinel error
	}{
		{"wrong application", func() error { _, err := wrongApp.Login(ctx, "bob", "x"); return err }, 401, "invalid_application", client.ErrInvalidApplication},
		{"missing field", func() error { _, err := c.SignUp(ctx, "", "x"); return err }, 422, "validation_failed", client.ErrValidationFailed},
		{"taken name", func() error { _, err := c.SignUp(ctx, "BOB", "vortex-lamp-71"); return err }, 409, "username_taken", client.ErrUsernameTaken},
		{"wrong password", func() error { _, err := c.Login(ctx, "bob", "wrong-password"); return err }, 401, "invalid_credentials", client.ErrInvalidCredentials},
		{"unknown code", func() error { _, err := c.SignUpWithLicenseCode(ctx, "AAAAA-BBBBB"); return err }, 401, "license_invalid", client.ErrLicenseInvalid},
		{"used code", func() error { _, err := c.ActivateLicense(ctx, used, "bob", "vortex-lamp-71"); return err }, 401, "license_used", client.ErrLicenseUsed},
		{"no membership", func() error { _, err := c.Login(ctx, "bob", "vortex-lamp-71"); return err }, 403, "membership_inactive", client.ErrMembershipInactive},
		{"no user", func() error { _, err := c.AppContext(ctx, client.Anonymous); return err }, 401, "authentication_required", client.ErrAuthenticationRequired},
		{"unknown file", func() error {
			_, err := c.Download(ctx, client.LicenseCode(used), "00000000-0000-0000-0000-000000000000", filepath.Join(t.TempDir(), "f"))
			return err
		}, 404, "not_found", client.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var e *client.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if e.Status != tc.status || e.Code != tc.code || e.Detail == "" || !errors.Is(err, tc.sentinel) {
				t.Fatalf("error %+v (%v), want %d %s wrapping %v", e, err, tc.status, tc.code, tc.sentinel)
			}
			if tc.code == "validation_failed" && len(e.Fields) == 0 {
				t.Fatal("a validation error without fields")
			}
		})
	}
}

// TestSessions_ChangePasswordKeepsTheCurrentSessionAndEndsOthers.
func TestSessions_ChangePasswordKeepsTheCurrentSessionAndEndsOthers(t *testing.T) {
	ctx := context.Background()
	c, appID := newClient(t, access.AppSettings{})
	if _, err := c.SignUp(ctx, "carol", "first-password"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ActivateLicense(ctx, licenseCode(appID), "carol", "first-password"); err != nil {
		t.Fatal(err)
	}
	current, err := c.Login(ctx, "carol", "first-password")
	if err != nil {
		t.Fatal(err)
	}
	other, err := c.Login(ctx, "carol", "first-password")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ChangePassword(ctx, "carol", "first-password", "second-password", current.Token); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppContext(ctx, client.Token(current.Token)); err != nil {
		t.Fatalf("the current session ended: %v", err)
	}
	if _, err := c.AppContext(ctx, client.Token(other.Token)); !errors.Is(err, client.ErrInvalidCredentials) {
		t.Fatalf("the other session: %v", err)
	}
	if _, err := c.AppContext(ctx, client.Password{Username: "carol", Password: "second-password"}); err != nil {
		t.Fatalf("the new password: %v", err)
	}
}

// TestDevice_TheHardwareIDIsSentWhereTheApplicationNeedsIt.
func TestDevice_TheHardwareIDIsSentWhereTheApplicationNeedsIt(t *testing.T) {
	ctx := context.Background()
	on := true
	c, appID := newClient(t, access.AppSettings{DeviceAuth: &on}, client.WithHardwareID("device-one"))
	code := licenseCode(appID)
	if _, err := c.SignUpWithLicenseCode(ctx, code); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppContext(ctx, client.LicenseCode(code)); err != nil {
		t.Fatal(err)
	}
	other := newClientFor(t, appID, "device-two")
	if _, err := other.LoginWithLicenseCode(ctx, code); !errors.Is(err, client.ErrDeviceMismatch) {
		t.Fatalf("another device: %v", err)
	}
}

// TestDevice_ATokenIsSentWithTheClientsHardwareIDAndHeldToItsDevice: the
// Go client sends its hardware id with a session token too, so that its
// token calls pass an application that sets token_requires_hardware_id;
// the same token from a client with another hardware id is refused.
func TestDevice_ATokenIsSentWithTheClientsHardwareIDAndHeldToItsDevice(t *testing.T) {
	ctx := context.Background()
	on := true
	appID, key, secret := exampleApp(access.AppSettings{DeviceAuth: &on, TokenRequiresHardwareID: &on})
	clientOn := func(hardwareID string) *client.Client {
		c, err := client.New(server.URL, key, secret, client.WithHTTPClient(checkedHTTP(t)),
			client.WithHardwareID(hardwareID), client.WithSigningKeys(publicKeys(t, appID)...))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	one, two := clientOn("device-one"), clientOn("device-two")
	code := licenseCode(appID)
	if _, err := one.SignUpWithLicenseCode(ctx, code); err != nil {
		t.Fatal(err)
	}
	s, err := one.LoginWithLicenseCode(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	token := client.Token(s.Token)
	appContext := func(c *client.Client) error { _, err := c.AppContext(ctx, token); return err }
	offlineToken := func(c *client.Client) error {
		tok, err := c.OfflineToken(ctx, token)
		if err != nil {
			return err
		}
		if _, err := client.VerifyOfflineToken(tok.Token, publicKeys(t, appID), "device-one", time.Now()); err != nil {
			t.Errorf("the offline token of device-one: %v", err)
		}
		return nil
	}
	for _, tc := range []struct {
		name string
		call func(*client.Client) error
		c    *client.Client
		want error
	}{
		{"app_context on the token's device", appContext, one, nil},
		{"offline_token on the token's device", offlineToken, one, nil},
		{"app_context on another device", appContext, two, client.ErrDeviceMismatch},
		{"offline_token on another device", offlineToken, two, client.ErrDeviceMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(tc.c); !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
}

// newClientFor is a client of the application with another hardware id;
// the application gets a new secret for it, so earlier clients stop
// working.
func newClientFor(t *testing.T, appID, hardwareID string) *client.Client {
	t.Helper()
	app, err := server.Service.App(context.Background(), appID)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := server.Service.RotateSecret(context.Background(), appID)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(server.URL, app.APIKey, secret, client.WithHardwareID(hardwareID))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDownload_ResumesChecksAndStartsOver covers a download from nothing,
// one resumed from a partial file, one whose partial bytes are corrupt
// (checksum mismatch, partial removed), and one whose partial file is of
// an older version (started over).
func TestDownload_ResumesChecksAndStartsOver(t *testing.T) {
	ctx := context.Background()
	c, appID := newClient(t, access.AppSettings{})
	content := []byte(strings.Repeat("0123456789abcdef", 5000))
	f, err := server.UploadFile(ctx, appID, "data.bin", content)
	if err != nil {
		t.Fatal(err)
	}
	code := licenseCode(appID)
	if _, err := c.SignUpWithLicenseCode(ctx, code); err != nil {
		t.Fatal(err)
	}
	etag := `"` + f.SHA256 + `"`
	for _, tc := range []struct {
		name       string
		part, tag  string // the partial file and its ETag before the call
		wantErr    error
		wantResult bool
	}{
		{"from nothing", "", "", nil, true},
		{"resumed", string(content[:30000]), etag, nil, true},
		{"resumed when nearly complete", string(content[:len(content)-1]), etag, nil, true},
		{"corrupt partial bytes", strings.Repeat("x", 30000), etag, client.ErrChecksumMismatch, false},
		{"partial of an older version", strings.Repeat("y", 30000), `"` + strings.Repeat("0", 64) + `"`, nil, true},
		{"partial as long as the file", string(content), etag, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data.bin")
			if tc.part != "" {
				if err := os.WriteFile(path+".part", []byte(tc.part), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path+".part.etag", []byte(tc.tag), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			n, err := c.Download(ctx, client.LicenseCode(code), f.ID, path)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			got, rerr := os.ReadFile(path)
			if tc.wantResult {
				if rerr != nil || string(got) != string(content) || n != int64(len(content)) {
					t.Fatalf("downloaded %d bytes (%v), want the file's %d", len(got), rerr, len(content))
				}
			} else if rerr == nil {
				t.Fatal("a file that failed its check was kept")
			}
			for _, leftover := range []string{path + ".part", path + ".part.etag"} {
				if _, err := os.Stat(leftover); err == nil {
					t.Errorf("%s left behind", filepath.Base(leftover))
				}
			}
		})
	}
}

// TestContext_DeadlinesAndTimeoutsEndTheCall: a cancelled context and the
// client's timeout both end a call with the context's error.
func TestContext_DeadlinesAndTimeoutsEndTheCall(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	})}
	l := listen(t)
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	base := "http://" + l.Addr().String()

	c, err := client.New(base, "k", "s", client.WithTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.Login(context.Background(), "a", "b"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("the timeout did not end the call")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c2, _ := client.New(base, "k", "s")
	if _, err := c2.AppContext(ctx, client.Anonymous); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
