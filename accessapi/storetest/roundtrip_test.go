package storetest_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
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

// counts returns an export's records by type.
func counts(t *testing.T, data []byte) access.ExportStats {
	t.Helper()
	out := access.ExportStats{}
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var r struct{ Type access.RecordType }
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("an export line %.100q: %v", l, err)
		}
		out[r.Type]++
	}
	return out
}

func TestExport_SQLiteToMongoToSQLiteKeepsEveryRecordAndFileByte(t *testing.T) {
	first := storetest.SQLite(t)
	conformance.Populate(t, first)
	want := conformance.Export(t, first)
	// Records a store leaves out would pass the comparison below on
	// every store alike: count them against what Populate wrote.
	wantCounts := counts(t, want)
	for typ, n := range conformance.PopulatedWebhookRecords {
		if wantCounts[typ] != n {
			t.Fatalf("the export holds %d %s records, want %d", wantCounts[typ], typ, n)
		}
	}

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
		if c := counts(t, got); !maps.Equal(c, wantCounts) {
			t.Fatalf("%s: records by type %v, want %v", name, c, wantCounts)
		}
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
