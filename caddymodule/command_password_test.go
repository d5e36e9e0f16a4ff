package caddymodule

import (
	"bytes"
	"os"
	"testing"
)

func TestReadPassword_FromAPipeReadsOneLineWithoutAPrompt(t *testing.T) {
	for _, tt := range []struct {
		name, input, want string
		wantErr           bool
	}{
		{"a line", "vortex-lamp-71\nthe rest\n", "vortex-lamp-71", false},
		{"a Windows line end", "vortex-lamp-71\r\n", "vortex-lamp-71", false},
		{"no line end", "vortex-lamp-71", "vortex-lamp-71", false},
		{"nothing", "", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			go func() {
				_, _ = w.WriteString(tt.input)
				w.Close()
			}()
			var prompt bytes.Buffer
			got, err := readPassword(r, &prompt)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("read %q, %v; want %q (error: %v)", got, err, tt.want, tt.wantErr)
			}
			if prompt.Len() != 0 {
				t.Fatalf("prompted %q on a pipe", prompt.String())
			}
		})
	}
}
