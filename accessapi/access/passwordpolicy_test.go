package access

import (
	"strings"
	"testing"
)

func TestValidatePassword_FollowsNIST80063B(t *testing.T) {
	app := &App{MinPasswordLength: 8}
	tests := []struct {
		name, username, password string
		want                     string // the field message, "" when accepted
	}{
		{"a long passphrase", "alice", "correct horse battery staple", ""},
		{"64 characters", "alice", strings.Repeat("x1y2", 16), ""},
		{"1024 bytes", "alice", strings.Repeat("z", 1024), ""},
		{"too short says the minimum", "alice", "abc12", "must be at least 8 characters long"},
		{"longer than 1024 bytes", "alice", strings.Repeat("z", 1025), "must be at most 1024 bytes"},
		{"a common breached password", "alice", "password1", "is one of the most common passwords; choose another"},
		{"common in another case", "alice", "QWERTYUIOP", "is one of the most common passwords; choose another"},
		{"containing the username", "Alice", "xx-alice-2024!", "must not contain the username"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe := validatePassword(app, tt.username, tt.password)
			got := ""
			if fe != nil {
				got = fe.Message
			}
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
