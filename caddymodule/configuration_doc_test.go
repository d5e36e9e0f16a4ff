package caddymodule

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// configurationDoc is docs/configuration.md.
func configurationDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docSection is the text of doc's "## title" section.
func docSection(t *testing.T, doc, title string) string {
	t.Helper()
	i := strings.Index(doc, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("configuration.md has no section %q", title)
	}
	rest := doc[i+len(title)+5:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func TestConfigurationDoc_TablesEveryOptionOfTheAppOnce(t *testing.T) {
	section := docSection(t, configurationDoc(t), "The `app_access` app")
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)[ `]").FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	seen := map[string]bool{}
	for _, name := range documented {
		if seen[name] {
			t.Errorf("the options table has %s twice", name)
		}
		seen[name] = true
	}
	typ := reflect.TypeFor[App]()
	var fields []string
	for i := range typ.NumField() {
		if tag := typ.Field(i).Tag.Get("json"); tag != "" {
			fields = append(fields, strings.Split(tag, ",")[0])
		}
	}
	for _, f := range fields {
		if !seen[f] {
			t.Errorf("the options table lacks %s", f)
		}
	}
	for _, name := range documented {
		if !slices.Contains(fields, name) {
			t.Errorf("the options table has %s, which the app does not take", name)
		}
	}
}

func TestConfigurationDoc_TheExampleIsAccepted(t *testing.T) {
	section := docSection(t, configurationDoc(t), "The `app_access` app")
	m := regexp.MustCompile("(?s)```caddyfile\n\\{\n(.*?)\n\\}\n```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("no Caddyfile example in the section")
	}
	var a App
	if err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser(m[1])); err != nil {
		t.Fatalf("the example is refused: %v\n%s", err, m[1])
	}
}

func TestConfigurationDoc_ListsEveryDirectiveUnderDirectives(t *testing.T) {
	section := docSection(t, configurationDoc(t), "Directives")
	for _, d := range []string{"app_access_api", "app_access_auth", "app_access_admin"} {
		if !strings.Contains(section, "- `"+d) {
			t.Errorf("the Directives section does not list %s", d)
		}
	}
}
