package openapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
)

var update = flag.Bool("update", false, "rewrite client.json and management.json from the description")

// TestDocumentsAreGeneratedFromTheDescription fails when a committed
// document differs from what the description generates; -update rewrites
// them.
func TestDocumentsAreGeneratedFromTheDescription(t *testing.T) {
	for _, tc := range []struct {
		file     string
		doc      obj
		embedded []byte
	}{
		{"client.json", clientDocument(), Client},
		{"management.json", managementDocument(), Management},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tc.doc); err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := os.WriteFile(tc.file, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !bytes.Equal(buf.Bytes(), tc.embedded) {
				t.Fatalf("%s is not what the description generates; run go test ./accessapi/openapi -update", tc.file)
			}
		})
	}
}

// TestDocumentsAreValidOpenAPI31 parses each document and checks it
// against the OpenAPI 3.1 schema.
func TestDocumentsAreValidOpenAPI31(t *testing.T) {
	for name, doc := range map[string][]byte{"client": Client, "management": Management} {
		t.Run(name, func(t *testing.T) {
			d, err := libopenapi.NewDocument(doc)
			if err != nil {
				t.Fatal(err)
			}
			if v := d.GetSpecInfo().SpecFormat; v != "oas3" && d.GetVersion() != "3.1.0" {
				t.Fatalf("version %s, format %s", d.GetVersion(), v)
			}
			v, errs := validator.NewValidator(d)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if ok, verrs := v.ValidateDocument(); !ok {
				for _, e := range verrs {
					t.Errorf("%s: %s", e.Message, e.Reason)
					for _, se := range e.SchemaValidationErrors {
						t.Errorf("  %s at %s", se.Reason, se.KeywordLocation)
					}
				}
			}
		})
	}
}
