package access_test

import (
	"context"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
)

// TestSetVariable_RefusesNamesThatChangeAURLPath: a name is put in URL
// paths (the admin API's, a script's), so the names that would change the
// path's meaning are refused, and control characters; ordinary names,
// dots and spaces and non-ASCII included, are kept.
func TestSetVariable_RefusesNamesThatChangeAURLPath(t *testing.T) {
	f := newFixture(t, access.AppSettings{})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"motd", true},
		{"download.url", true},
		{"Welcome message", true},
		{"größe", true},
		{"...", true},
		{".", false},
		{"..", false},
		{"../../other/rotate_secret?", false},
		{"a/b", false},
		{`a\b`, false},
		{"a?b", false},
		{"a#b", false},
		{"line\nbreak", false},
		{"tab\there", false},
		{"nul\x00", false},
		{strings.Repeat("n", access.MaxVariableNameLength), true},
		{strings.Repeat("n", access.MaxVariableNameLength+1), false},
	} {
		_, err := f.svc.SetVariable(ctx, f.app.ID, tc.name, "v")
		if (err == nil) != tc.ok {
			t.Errorf("SetVariable(%q): %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
