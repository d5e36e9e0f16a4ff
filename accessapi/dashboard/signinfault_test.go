package dashboard_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/dashboard"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// nonces are the per-answer CSP nonces, the one part of two sign-in
// pages that differs by design.
var nonces = regexp.MustCompile(`nonce-[A-Za-z0-9_-]+|nonce="[A-Za-z0-9_-]+"`)

// TestSignIn_RightPasswordWithAnUnreadableTOTPSecretLooksLikeAWrongOne: once
// the file key changes, an administrator's sealed TOTP secret no longer
// opens. The right password then fails the sign-in exactly as a wrong one
// does (status, page, counted against the throttle), so the answer tells a
// guesser nothing; the operator's log gets the cause, without a secret.
func TestSignIn_RightPasswordWithAnUnreadableTOTPSecretLooksLikeAWrongOne(t *testing.T) {
	ctx := context.Background()
	store := storetest.SQLite(t)
	before := access.NewService(store, access.Config{Argon2: cheapArgon2, FileKey: bytes.Repeat([]byte{1}, 32)})
	if _, err := before.CreateAdmin(ctx, adminName, adminPassword); err != nil {
		t.Fatal(err)
	}
	en, err := before.BeginTOTP(ctx, adminName)
	if err != nil {
		t.Fatal(err)
	}
	prev, _ := totp.GenerateCode(en.Secret, time.Now().Add(-30*time.Second))
	if err := before.ConfirmTOTP(ctx, adminName, prev); err != nil {
		t.Fatal(err)
	}
	// The same store under another file key.
	after := access.NewService(store, access.Config{Argon2: cheapArgon2, FileKey: bytes.Repeat([]byte{2}, 32)})
	core, logs := observer.New(zap.DebugLevel)
	dash, err := dashboard.New(dashboard.Config{Prefix: "/admin", Logger: zap.New(core),
		Service: func() (*access.Service, error) { return after, nil }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(dash)
	defer srv.Close()
	e := &env{srv: srv}
	code, _ := totp.GenerateCode(en.Secret, time.Now())

	signIn := func(password string) (int, string) {
		resp, body := e.browser(t).post("/admin/signin", url.Values{"username": {adminName}, "password": {password}, "code": {code}})
		return resp.StatusCode, nonces.ReplaceAllString(body, "nonce")
	}
	wrongStatus, wrongBody := signIn("wrong password!")
	rightStatus, rightBody := signIn(adminPassword)
	if wrongStatus != http.StatusUnauthorized || rightStatus != wrongStatus || rightBody != wrongBody {
		t.Fatalf("right password: %d, wrong password: %d; the pages differ: %v\n%s", rightStatus, wrongStatus, rightBody != wrongBody, rightBody)
	}
	// Counted as a failure too: the right password runs into the throttle
	// as wrong ones do, not later.
	var status int
	for range access.DefaultThrottlePolicy.AccountAddressFree {
		status, _ = signIn(adminPassword)
	}
	if status != http.StatusTooManyRequests {
		t.Fatalf("after repeated sign-ins with the right password and an unreadable secret: %d, want 429", status)
	}

	faults := logs.FilterMessageSnippet("sign-in failed on the server's side").All()
	if len(faults) == 0 {
		t.Fatal("the operator's log does not say why the sign-in failed")
	}
	for _, entry := range logs.All() {
		line := entry.Message
		for k, v := range entry.ContextMap() {
			line += " " + k + "=" + fmt.Sprint(v)
		}
		if strings.Contains(line, adminPassword) || strings.Contains(line, en.Secret) || strings.Contains(line, code) {
			t.Errorf("a log line carries a secret: %s", line)
		}
	}
	if got := faults[0].ContextMap()["username"]; got != adminName {
		t.Errorf("the log names %v, want %s", got, adminName)
	}
}
