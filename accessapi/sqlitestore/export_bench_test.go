package sqlitestore_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/sqlitestore"
)

// BenchmarkExportImport exports the large store (see largeStore) to a file
// and imports it into a new store, reporting the time of each, the file's
// size and the peak heap in use, which stays flat as the data grows.
//
//	SQLITESTORE_BENCH_LICENSES=1000000 go test -run '^$' -bench ExportImport -benchtime 1x ./accessapi/sqlitestore/
func BenchmarkExportImport(b *testing.B) {
	s, _ := largeStore(b)
	ctx := context.Background()
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "export.jsonl")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		peak, stop := watchHeap()
		t0 := time.Now()
		stats, err := access.NewService(s, access.Config{}).Export(ctx, f, nil)
		if err != nil {
			b.Fatal(err)
		}
		exportTime := time.Since(t0)
		_ = f.Close()
		fi, _ := os.Stat(path)

		dst, err := sqlitestore.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		in, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		got, err := access.NewService(dst, access.Config{}).Import(ctx, bufio.NewReader(in))
		if err != nil {
			b.Fatal(err)
		}
		importTime := time.Since(t0)
		stop()
		_ = in.Close()
		_ = dst.Close()
		if got[access.RecordLicense] != stats[access.RecordLicense] {
			b.Fatalf("imported %d licenses of %d", got[access.RecordLicense], stats[access.RecordLicense])
		}
		b.ReportMetric(float64(stats[access.RecordLicense]), "licenses")
		b.ReportMetric(exportTime.Seconds(), "export-s")
		b.ReportMetric(importTime.Seconds(), "import-s")
		b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	}
}

// watchHeap samples the heap in use every 50 ms until stop.
func watchHeap() (peak *atomic.Uint64, stop func()) {
	peak = new(atomic.Uint64)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return peak, func() { close(done) }
}
