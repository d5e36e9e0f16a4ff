package sqlitestore_test

import (
	"database/sql"
	"net/url"
	"os"
	"testing"
	"time"
)

// BenchmarkQuickCheck times PRAGMA quick_check and PRAGMA integrity_check
// of the large database, on a connection of their own as a start or a
// backup would run them:
//
//	SQLITESTORE_BENCH_LICENSES=1000000 go test -run '^$' -bench QuickCheck -benchtime 1x ./accessapi/sqlitestore/
func BenchmarkQuickCheck(b *testing.B) {
	s, _ := largeStore(b)
	fi, err := os.Stat(s.Path())
	if err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: s.Path()}).EscapedPath()+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, pragma := range []string{"quick_check", "integrity_check"} {
		b.Run(pragma, func(b *testing.B) {
			for b.Loop() {
				start := time.Now()
				var res string
				if err := db.QueryRow(`PRAGMA ` + pragma).Scan(&res); err != nil {
					b.Fatal(err)
				}
				if res != "ok" {
					b.Fatalf("%s: %s", pragma, res)
				}
				b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/check")
			}
			b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
		})
	}
}
