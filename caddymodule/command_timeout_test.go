package caddymodule

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// silentServer accepts connections and never answers, as a wedged server
// or another program on the admin port does.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return l.Addr().String()
}

func TestCommand_AServerThatNeverAnswersFailsTheCommandAfterTheTimeout(t *testing.T) {
	isolate(t)
	addr := silentServer(t)
	for _, args := range [][]string{
		{"apps", "list"},
		{"export"}, // unbounded by default, bounded when --timeout is given
	} {
		start := time.Now()
		out, err := runCommand(t, append(args, "--address", addr, "--timeout", "300ms")...)
		if err == nil || !strings.Contains(err.Error(), "no answer from the admin endpoint at "+addr+" within 300ms") {
			t.Fatalf("%v: error %v, printed\n%s", args, err, out)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Fatalf("%v took %s", args, took)
		}
	}
}

func TestCommand_OnlyCommandsThatMoveDataWaitWithoutLimit(t *testing.T) {
	isolate(t)
	c := newCLI(strings.NewReader(""), &strings.Builder{})
	root := newRootForTest(c)
	for _, tt := range []struct {
		path []string
		want time.Duration
	}{
		{[]string{"apps", "list"}, defaultTimeout},
		{[]string{"licenses", "create"}, defaultTimeout},
		{[]string{"export"}, 0},
		{[]string{"import"}, 0},
		{[]string{"backup"}, 0},
		{[]string{"files", "upload"}, 0},
	} {
		cmd, _, err := root.Find(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.timeoutOf(cmd); got != tt.want {
			t.Errorf("%v waits %s, want %s", tt.path, got, tt.want)
		}
	}
}

// newRootForTest is the app-access command tree of c.
func newRootForTest(c *cli) *cobra.Command {
	root := &cobra.Command{Use: "app-access", SilenceErrors: true}
	c.build(root)
	return root
}
