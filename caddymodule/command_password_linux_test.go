package caddymodule

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the controlling side, which plays the
// user's keyboard and screen, and the terminal a command reads.
func openPTY(t *testing.T) (control, tty *os.File) {
	t.Helper()
	control, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { control.Close() })
	// Not control.Fd(), which would make reads ignore the deadline below.
	raw, err := control.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var ioctlErr error
	if err := raw.Control(func(fd uintptr) {
		if ioctlErr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ioctlErr == nil {
			n, ioctlErr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		}
	}); err != nil || ioctlErr != nil {
		t.Skipf("preparing the pseudo-terminal: %v %v", err, ioctlErr)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return control, tty
}

// TestReadPassword_OnATerminalTheTypedPasswordIsNotEchoedAndIsAskedTwice:
// on a terminal the password is read without echo, twice, and two that
// differ are refused.
func TestReadPassword_OnATerminalTheTypedPasswordIsNotEchoedAndIsAskedTwice(t *testing.T) {
	tests := []struct {
		name, typed, want string
		wantErr           bool
	}{
		{"the same twice", "vortex-lamp-71\nvortex-lamp-71\n", "vortex-lamp-71", false},
		{"a slip the second time", "vortex-lamp-71\nvortex-lamp-17\n", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			control, tty := openPTY(t)
			var prompt bytes.Buffer
			type result struct {
				password string
				err      error
			}
			done := make(chan result, 1)
			go func() {
				p, err := readPassword(tty, &prompt)
				done <- result{p, err}
			}()
			// Type once the terminal reads without echo (or, without the
			// fix, with it): a moment after the read began.
			time.Sleep(200 * time.Millisecond)
			if _, err := control.WriteString(tc.typed); err != nil {
				t.Fatal(err)
			}
			var got result
			select {
			case got = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the password was not read")
			}
			if got.password != tc.want || (got.err != nil) != tc.wantErr {
				t.Fatalf("read %q, %v; want %q (error %v)", got.password, got.err, tc.want, tc.wantErr)
			}
			// What the terminal shows the user.
			_ = control.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			screen := make([]byte, 256)
			n, err := control.Read(screen)
			if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatal(err)
			}
			if strings.Contains(string(screen[:n]), "vortex") {
				t.Fatalf("the terminal echoed the password: %q", screen[:n])
			}
			if p := prompt.String(); !strings.Contains(p, "Password") || !strings.Contains(p, "again") {
				t.Fatalf("prompt %q, want one asking for the password and then for it again", p)
			}
		})
	}
}
