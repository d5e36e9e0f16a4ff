package client

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// ErrNoMachineID is returned by HardwareID where the system names no
// machine id.
var ErrNoMachineID = errors.New("no machine id found on this system")

// HardwareID returns a stable id of this machine for device
// authentication: the system's machine id, hashed (HMAC-SHA-256) under
// salt, a value of the application's own (such as its name), so that the
// raw id never leaves the machine and two applications see different ids.
// The result is 64 hex characters.
//
// The machine id is /etc/machine-id (or /var/lib/dbus/machine-id) on
// Linux, the IOPlatformUUID (ioreg) on macOS and the MachineGuid of
// HKLM\SOFTWARE\Microsoft\Cryptography (reg query) on Windows. It survives
// reboots and updates; a reinstall of the system changes it.
func HardwareID(ctx context.Context, salt string) (string, error) {
	id, err := machineID(ctx, runtime.GOOS)
	if err != nil {
		return "", err
	}
	return hashMachineID(id, salt), nil
}

// hashMachineID hashes a machine id under the application's salt.
func hashMachineID(id, salt string) string {
	mac := hmac.New(sha256.New, []byte("app-access hardware id\x00"+salt))
	mac.Write([]byte(strings.ToLower(strings.TrimSpace(id))))
	return hex.EncodeToString(mac.Sum(nil))
}

func machineID(ctx context.Context, goos string) (string, error) {
	switch goos {
	case "linux":
		for _, p := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
			if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) != "" {
				return strings.TrimSpace(string(b)), nil
			}
		}
		return "", ErrNoMachineID
	case "darwin":
		out, err := exec.CommandContext(ctx, "ioreg", "-rd1", "-c", "IOPlatformExpertDevice").Output()
		if err != nil {
			return "", fmt.Errorf("client: ioreg: %w", err)
		}
		return parseIOReg(string(out))
	case "windows":
		out, err := exec.CommandContext(ctx, "reg", "query", `HKLM\SOFTWARE\Microsoft\Cryptography`, "/v", "MachineGuid").Output()
		if err != nil {
			return "", fmt.Errorf("client: reg query: %w", err)
		}
		return parseRegQuery(string(out))
	}
	return "", fmt.Errorf("client: %s: %w", goos, ErrNoMachineID)
}

// parseIOReg finds the IOPlatformUUID in ioreg's output:
//
//	"IOPlatformUUID" = "564D8A1C-…"
func parseIOReg(out string) (string, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(name) == `"IOPlatformUUID"` {
			if v := strings.Trim(strings.TrimSpace(value), `"`); v != "" {
				return v, nil
			}
		}
	}
	return "", ErrNoMachineID
}

// parseRegQuery finds the MachineGuid in reg query's output:
//
//	MachineGuid    REG_SZ    6f1a…
func parseRegQuery(out string) (string, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && strings.EqualFold(f[0], "MachineGuid") && f[1] == "REG_SZ" {
			return f[2], nil
		}
	}
	return "", ErrNoMachineID
}
