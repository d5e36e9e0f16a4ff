package access_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
)

// BenchmarkSignUpWithLicense_Parallel is the license sign-up use case from
// 64 concurrent callers, each with its own code, on the test store.
func BenchmarkSignUpWithLicense_Parallel(b *testing.B) {
	f := newFixture(b, access.AppSettings{})
	ctx := context.Background()
	var codes []string
	for len(codes) < b.N {
		ls, err := f.svc.CreateLicenses(ctx, f.app.ID, access.LicenseRequest{Count: min(b.N-len(codes), access.MaxLicensesPerCall), Grant: minutesGrant(60)})
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range ls {
			codes = append(codes, l.Code)
		}
	}
	var next atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			code := codes[next.Add(1)-1]
			if _, err := f.svc.SignUpWithLicense(ctx, f.app, code, ""); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
