package storetest_test

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/storetest/conformance"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// records returns an export's lines without its end record (whose
// checksum depends on the order), sorted: the stores list some types in
// different orders.
func records(data []byte) []string {
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	out := make([]string, 0, len(lines)-1)
	for _, l := range lines[:len(lines)-1] {
		out = append(out, string(l))
	}
	slices.Sort(out)
	return out
}

func TestExport_SQLiteToMongoToSQLiteKeepsEveryRecordAndFileByte(t *testing.T) {
	first := storetest.SQLite(t)
	conformance.Populate(t, first)
	want := conformance.Export(t, first)

	mongo := storetest.Mongo(t)
	if _, err := conformance.Import(t, mongo, want); err != nil {
		t.Fatalf("import into MongoDB: %v", err)
	}
	viaMongo := conformance.Export(t, mongo)
	last := storetest.SQLite(t)
	if _, err := conformance.Import(t, last, viaMongo); err != nil {
		t.Fatalf("import back into SQLite: %v", err)
	}
	for name, got := range map[string][]byte{"MongoDB": viaMongo, "SQLite again": conformance.Export(t, last)} {
		if g, w := records(got), records(want); !slices.Equal(g, w) {
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Fatalf("%s: record %q, want %q", name, g[i][:min(len(g[i]), 300)], w[i][:min(len(w[i]), 300)])
				}
			}
			t.Fatalf("%s: %d records, want %d", name, len(g), len(w))
		}
	}
}
