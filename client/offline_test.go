package client_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/client"
)

func TestVerifyOfflineToken_HonoursSignatureValidityAndDevice(t *testing.T) {
	ctx := context.Background()
	device := true
	appID, key, secret := exampleApp(access.AppSettings{DeviceAuth: &device})
	c, err := client.New(server.URL, key, secret, client.WithHardwareID("hw-offline"), client.WithSigningKeys(publicKeys(t, appID)...))
	if err != nil {
		t.Fatal(err)
	}
	code := licenseCode(appID)
	if _, err := c.SignUpWithLicenseCode(ctx, code); err != nil {
		t.Fatal(err)
	}
	tok, err := c.OfflineToken(ctx, client.LicenseCode(code))
	if err != nil {
		t.Fatal(err)
	}
	keys := publicKeys(t, appID)
	now := time.Now()
	l, err := client.VerifyOfflineToken(tok.Token, keys, "hw-offline", now)
	if err != nil || l.AppID != appID || l.HardwareID != "hw-offline" || !l.Membership.IsActive || l.Membership.ExpiresAt == nil {
		t.Fatalf("license %+v, %v", l, err)
	}
	// A license of an hour: the token ends with the membership, before 72 h.
	if !tok.ValidUntil.Equal(l.Membership.ExpiresAt.Truncate(time.Second)) || l.ValidUntil != tok.ValidUntil.Unix() {
		t.Fatalf("valid until %v, membership ends %v", tok.ValidUntil, l.Membership.ExpiresAt)
	}
	other, _, _ := ed25519.GenerateKey(nil)
	parts := strings.Split(tok.Token, ".")
	forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(
		string(must(base64.RawURLEncoding.DecodeString(parts[1]))), `"is_lifetime":false`, `"is_lifetime":true `, 1))) + "." + parts[2]
	for _, tc := range []struct {
		name  string
		token string
		keys  []ed25519.PublicKey
		hwid  string
		at    time.Time
		want  error
	}{
		{"another device", tok.Token, keys, "hw-other", now, client.ErrTokenWrongDevice},
		{"no device", tok.Token, keys, "", now, client.ErrTokenWrongDevice},
		{"after valid-until", tok.Token, keys, "hw-offline", tok.ValidUntil, client.ErrTokenExpired},
		{"long before issue", tok.Token, keys, "hw-offline", now.Add(-time.Hour), client.ErrTokenExpired},
		{"the wrong key", tok.Token, []ed25519.PublicKey{other}, "hw-offline", now, client.ErrBadSignature},
		{"a forged payload", forged, keys, "hw-offline", now, client.ErrBadSignature},
		{"not a token", "aat1.e30", keys, "hw-offline", now, client.ErrBadSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := client.VerifyOfflineToken(tc.token, tc.keys, tc.hwid, tc.at); !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// The test vectors of docs/api.md, made here from a fixed seed.
var (
	vectorSeed, _ = hex.DecodeString("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	vectorKey     = ed25519.NewKeyFromSeed(vectorSeed)
	vectorPublic  = vectorKey.Public().(ed25519.PublicKey)
	vectorIssued  = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	vectorExpires = "2026-12-01T00:00:00Z"
	vectorClaims  = access.OfflineClaims{KeyID: access.SigningKeyID(vectorPublic), AppID: "6f1c3b2a-8d4e-4f5a-9b0c-1d2e3f4a5b6c",
		UserID: "0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b", Username: "alice",
		Membership: access.OfflineMembership{IsActive: true, ExpiresAt: &vectorExpires}, HardwareID: "hw-1234",
		IssuedAt: vectorIssued.Unix(), ValidUntil: vectorIssued.Add(72 * time.Hour).Unix()}
	vectorBody = `{"ok":true}`
)

// vectorLines are the lines of the test vector block of docs/api.md.
func vectorLines(t *testing.T) []string {
	t.Helper()
	token, err := access.SignOfflineToken(vectorKey, vectorClaims)
	if err != nil {
		t.Fatal(err)
	}
	input, leaf := vectorAnswer()
	request := vectorRequestLines()
	headers := vectorAnswerLines()
	return []string{
		"seed (hex):             " + hex.EncodeToString(vectorSeed),
		"public key (base64):    " + base64.StdEncoding.EncodeToString(vectorPublic),
		"key id:                 " + access.SigningKeyID(vectorPublic),
		"offline token:          " + token,
		"response body:          " + vectorBody,
		"request binding:        " + strings.ReplaceAll(request, "\n", `\n`),
		"answer headers:         " + strings.ReplaceAll(headers, "\n", `\n`),
		"response signing input: " + strings.ReplaceAll(string(input), "\n", `\n`),
		"leaf (hex):             " + hex.EncodeToString(leaf[:]),
		"root message:           " + strings.ReplaceAll(string(access.RootMessage(leaf[:])), "\n", `\n`),
		"response signature:     " + base64.StdEncoding.EncodeToString(ed25519.Sign(vectorKey, access.RootMessage(leaf[:]))),
	}
}

// The request and answer of the response signature's test vector: a GET
// of /app_context?lang=en with a session token, answered 200 with
// vectorBody as JSON, a batch of one, salt bytes 0 to 15.
var (
	vectorRequestHeader = map[string]string{"Authorization": "Bearer vector-session-token", "X-Api-Key": "vector-api-key"}
	vectorAnswerHeader  = map[string]string{"Content-Type": "application/json"}
	vectorSalt          = base64.RawURLEncoding.EncodeToString([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
)

// vectorRequestLines is the request binding text of the vector (no body:
// the SHA-256 of no bytes).
func vectorRequestLines() string {
	var b strings.Builder
	for _, name := range access.BoundRequestHeaders {
		b.WriteString(strings.ToLower(name) + ":" + vectorRequestHeader[name] + "\n")
	}
	empty := sha256.Sum256(nil)
	return b.String() + hex.EncodeToString(empty[:])
}

// vectorAnswerLines is the answer headers text of the vector.
func vectorAnswerLines() string {
	var b strings.Builder
	for _, name := range access.BoundAnswerHeaders {
		b.WriteString(strings.ToLower(name) + ":" + vectorAnswerHeader[name] + "\n")
	}
	return b.String()
}

// vectorAnswer is the vector's signing input, from the server's code, and
// its leaf (the root of a batch of one).
func vectorAnswer() ([]byte, [32]byte) {
	body := sha256.Sum256([]byte(vectorBody))
	empty := sha256.Sum256(nil)
	get := func(h map[string]string) func(string) string { return func(n string) string { return h[n] } }
	f := &access.SignedFacts{Method: "GET", Target: "/app_context?lang=en", Status: 200, Nonce: "bm9uY2UtMDAx",
		Request: access.RequestBindingSHA256(get(vectorRequestHeader), empty[:]), Headers: access.AnswerHeadersSHA256(get(vectorAnswerHeader)),
		Body: body[:]}
	input := access.ResponseSigningInput(f, vectorIssued.Unix(), access.SigningKeyID(vectorPublic), vectorSalt)
	return input, access.LeafHash(input)
}

// TestDocs_TestVectorsAreTheImplementations: docs/api.md shows the vectors
// this code makes, and the client verifies them.
func TestDocs_TestVectorsAreTheImplementations(t *testing.T) {
	doc, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(vectorLines(t), "\n")
	_, block, ok := strings.Cut(string(doc), "<!-- test-vectors:begin -->\n```text\n")
	block, _, ok2 := strings.Cut(block, "\n```\n<!-- test-vectors:end -->")
	if !ok || !ok2 || block != want {
		t.Fatalf("docs/api.md's test vectors are not this code's; the block should read:\n%s", want)
	}
	// The client's own verifier accepts the documented answer.
	c, err := client.New("http://vector.example", "vector-api-key", "vector-secret", client.WithSigningKeys(vectorPublic))
	if err != nil {
		t.Fatal(err)
	}
	_, leaf := vectorAnswer()
	req := httptest.NewRequest("GET", "http://vector.example/app_context?lang=en", nil)
	for k, v := range vectorRequestHeader {
		req.Header.Set(k, v)
	}
	res := &http.Response{StatusCode: 200, Header: http.Header{}}
	for k, v := range vectorAnswerHeader {
		res.Header.Set(k, v)
	}
	res.Header.Set("X-App-Access-Nonce", "bm9uY2UtMDAx")
	res.Header.Set("App-Access-Signature", "v2; kid="+access.SigningKeyID(vectorPublic)+"; ts="+strconv.FormatInt(vectorIssued.Unix(), 10)+
		"; salt="+vectorSalt+"; idx=0; proof=; sig="+base64.StdEncoding.EncodeToString(ed25519.Sign(vectorKey, access.RootMessage(leaf[:]))))
	empty := sha256.Sum256(nil)
	if err := client.CheckAnswer(c, req, res, "bm9uY2UtMDAx", empty[:], []byte(vectorBody), vectorIssued); err != nil {
		t.Fatalf("the client rejects the documented answer: %v", err)
	}
	res.Header.Set("Content-Type", "text/plain")
	if err := client.CheckAnswer(c, req, res, "bm9uY2UtMDAx", empty[:], []byte(vectorBody), vectorIssued); !errors.Is(err, client.ErrBadSignature) {
		t.Fatalf("the documented answer with another Content-Type: %v, want ErrBadSignature", err)
	}
	token := strings.TrimSpace(strings.TrimPrefix(vectorLines(t)[3], "offline token:"))
	l, err := client.VerifyOfflineToken(token, []ed25519.PublicKey{vectorPublic}, "hw-1234", vectorIssued.Add(time.Hour))
	if err != nil || l.Username != "alice" || l.ValidUntil != vectorClaims.ValidUntil {
		t.Fatalf("the documented token: %+v, %v", l, err)
	}
}

// offlineTokenOf is a token of the application appID signed by key, held
// to no device, valid for an hour from vectorIssued, naming kid.
func offlineTokenOf(t *testing.T, key ed25519.PrivateKey, kid, appID string) string {
	t.Helper()
	claims := vectorClaims
	claims.KeyID, claims.AppID, claims.HardwareID = kid, appID, ""
	claims.ValidUntil = vectorIssued.Add(time.Hour).Unix()
	token, err := access.SignOfflineToken(key, claims)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// TestVerifyOfflineToken_KeysThatAreNot32BytesAreAnErrorNotAPanic: a key
// of another length (a private key passed by mistake, a truncated one) is
// refused with ErrBadPublicKey, even when the token names it, where
// ed25519.Verify would panic.
func TestVerifyOfflineToken_KeysThatAreNot32BytesAreAnErrorNotAPanic(t *testing.T) {
	at := vectorIssued.Add(time.Minute)
	good := offlineTokenOf(t, vectorKey, client.KeyID(vectorPublic), vectorClaims.AppID)
	for _, tc := range []struct {
		name string
		key  ed25519.PublicKey
	}{
		{"an empty key", ed25519.PublicKey{}},
		{"a truncated key", vectorPublic[:31]},
		{"a key one byte too long", append(append(ed25519.PublicKey{}, vectorPublic...), 0)},
		{"a private key passed as a public one", ed25519.PublicKey(vectorKey)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			named := offlineTokenOf(t, vectorKey, client.KeyID(tc.key), vectorClaims.AppID)
			for _, token := range []string{named, good} {
				l, err := client.VerifyOfflineToken(token, []ed25519.PublicKey{vectorPublic, tc.key}, "", at)
				if !errors.Is(err, client.ErrBadPublicKey) || l != nil || !strings.Contains(err.Error(), "32 bytes") {
					t.Fatalf("license %+v, error %v; want ErrBadPublicKey naming the 32 bytes", l, err)
				}
			}
		})
	}
}

// TestVerifyAppOfflineToken_AnotherApplicationsTokenIsRefused: with the
// keys of two applications shipped, VerifyOfflineToken accepts either
// one's token (its AppID tells them apart); VerifyAppOfflineToken accepts
// only the named application's.
func TestVerifyAppOfflineToken_AnotherApplicationsTokenIsRefused(t *testing.T) {
	const appA, appB = "6f1c3b2a-8d4e-4f5a-9b0c-1d2e3f4a5b6c", "0b5e7f4c-2a1d-4c3b-8e9f-7a6b5c4d3e2f"
	_, keyB, _ := ed25519.GenerateKey(nil)
	publicB := keyB.Public().(ed25519.PublicKey)
	keys := []ed25519.PublicKey{vectorPublic, publicB}
	tokenA := offlineTokenOf(t, vectorKey, client.KeyID(vectorPublic), appA)
	tokenB := offlineTokenOf(t, keyB, client.KeyID(publicB), appB)
	at := vectorIssued.Add(time.Minute)
	for _, tc := range []struct {
		name    string
		token   string
		wantApp string
		wantErr error
	}{
		{"the application's own token", tokenA, appA, nil},
		{"another application's token", tokenB, "", client.ErrTokenWrongApp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := client.VerifyAppOfflineToken(appA, tc.token, keys, "", at)
			if !errors.Is(err, tc.wantErr) || (l == nil) != (tc.wantApp == "") || l != nil && l.AppID != tc.wantApp {
				t.Fatalf("license %+v, error %v; want app %q, error %v", l, err, tc.wantApp, tc.wantErr)
			}
			// VerifyOfflineToken checks no application: its AppID does.
			l, err = client.VerifyOfflineToken(tc.token, keys, "", at)
			if err != nil || (tc.wantErr == nil) != (l.AppID == appA) {
				t.Fatalf("VerifyOfflineToken: license %+v, error %v", l, err)
			}
		})
	}
}
