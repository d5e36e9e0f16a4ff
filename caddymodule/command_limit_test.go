package caddymodule

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestCommand_ALimitOutsideOneTo1000IsRefusedNotReplacedByTheDefault(t *testing.T) {
	isolate(t)
	root := &cobra.Command{Use: "app-access"}
	newCLI(bytes.NewReader(nil), &bytes.Buffer{}).build(root)
	var listings [][]string // each with the arguments it needs
	for _, name := range leafCommands() {
		c, _, err := root.Find(strings.Fields(name))
		if err != nil {
			t.Fatal(err)
		}
		if c.Flags().Lookup("limit") == nil {
			continue
		}
		args := strings.Fields(name)
		for _, word := range strings.Fields(c.Use)[1:] { // "activations USER_ID"
			args = append(args, strings.ToLower(word))
		}
		if c.Flags().Lookup("app") != nil {
			args = append(args, "--app", "x")
		}
		listings = append(listings, args)
	}
	if len(listings) < 5 {
		t.Fatalf("found --limit on %v only", listings)
	}
	for _, args := range listings {
		for _, limit := range []string{"0", "-5", "1001", "many"} {
			t.Run(strings.Join(args, " ")+" --limit "+limit, func(t *testing.T) {
				// Nothing listens there: a refusal must come before any call.
				full := append(append([]string{}, args...), "--limit", limit, "--address", "127.0.0.1:1")
				out, err := runCommand(t, full...)
				if err == nil || !strings.Contains(err.Error(), `"--limit"`) || !strings.Contains(err.Error(), "1 to 1000") {
					t.Fatalf("--limit %s: %v (%s), want it refused, naming --limit and 1 to 1000", limit, err, out)
				}
			})
		}
	}
}
