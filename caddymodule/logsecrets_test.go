package caddymodule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogs_NeverHoldACredential(t *testing.T) {
	up, calls := echoUpstream(t)
	logDir := t.TempDir()
	startLoggedServer(t, up.URL, logDir)
	a := createApp(t, map[string]any{"device_auth": true, "max_devices": 3})
	const (
		password = "Pa55-word-for-log-test-991"
		hwPass   = "HW-pass-7f3a9c0d2e"
		hwCode   = "HW-code-1b2c3d4e5f"
	)
	signUpBody := map[string]any{"username": "logan", "password": password, "hardware_id": hwPass}
	expect(t, request(t, "POST", apiBase+"/sign_up", a.headers(), signUpBody), 201, "")
	activation := issueCode(t, a, map[string]any{"minutes": 60})
	expect(t, request(t, "POST", apiBase+"/activate_license", a.headers(),
		map[string]any{"code": activation, "username": "logan", "password": password}), 201, "")
	token := login(t, a, map[string]any{"username": "logan", "password": password}, hwPass).str("session_token")
	code := issueCode(t, a, map[string]any{"minutes": 60})
	expect(t, request(t, "POST", apiBase+"/sign_up_with_license_code", a.headers(), map[string]any{"code": code, "hardware_id": hwCode}), 201, "")

	credentialForms := []map[string]string{
		a.headers("Authorization", "Bearer "+token, "X-Hardware-Id", hwPass),
		a.headers("X-Api-License-Code", code, "X-Hardware-Id", hwCode),
		a.headers("X-Api-Username", "logan", "X-Api-Password", password, "X-Hardware-Id", hwPass),
	}
	for _, base := range []string{apiBase + "/app_context", guardBase + "/anything"} {
		for _, h := range credentialForms {
			expect(t, request(t, "GET", base, h, nil), 200, "")
		}
		// Refusals are logged too.
		wrong := a.headers("X-Api-Username", "logan", "X-Api-Password", password+"-wrong", "X-Hardware-Id", hwPass)
		expect(t, request(t, "GET", base, wrong, nil), 401, "invalid_credentials")
	}
	if calls.Load() != 3 {
		t.Fatalf("upstream called %d times, want 3", calls.Load())
	}

	logs := map[string]string{}
	for _, name := range []string{"all", "api", "guard"} {
		raw, err := os.ReadFile(filepath.Join(logDir, name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		logs[name] = string(raw)
	}
	// The test can fail: the requests were logged, with the headers.
	for _, name := range []string{"api", "guard"} {
		if !strings.Contains(logs[name], `"X-Api-Key"`) || !strings.Contains(logs[name], "REDACTED") {
			t.Fatalf("%s access log lacks the logged, redacted headers:\n%s", name, logs[name])
		}
	}
	for name, text := range logs {
		for _, secret := range []string{a.secret, password, password + "-wrong", token, code, activation, hwPass, hwCode} {
			if strings.Contains(text, secret) {
				t.Errorf("%s.log holds the credential %q", name, secret)
			}
		}
	}
}
