package clientapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// TestSignedAnswers_LoadIsSignedInBatches: 64 clients at once over real
// connections share signatures (the batch signer), so a signature is not
// paid per answer under load.
func TestSignedAnswers_LoadIsSignedInBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("drives load")
	}
	// One signer for the whole run: the key ring stays cached.
	counted := new(signatureCounter)
	svc := access.NewService(storetest.SQLite(t), access.Config{Staleness: time.Hour, Observer: counted})
	yes, name := true, "load"
	app, err := svc.CreateApp(context.Background(), access.AppSettings{Name: &name, AnonymousAccess: &yes})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(clientapi.NewHandler(svc, nil, nil))
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	// The key ring is cached before the load (concurrent first requests
	// would each open it).
	if _, err := svc.ResponseSigner(context.Background(), app.APIKey); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var n int64
	var mu sync.Mutex
	end := time.Now().Add(2 * time.Second)
	for range 64 {
		wg.Go(func() {
			for time.Now().Before(end) {
				req, _ := http.NewRequest("GET", srv.URL+"/app_context", nil)
				req.Header.Set("X-Api-Key", app.APIKey)
				req.Header.Set("X-Api-Secret", app.APISecret)
				res, err := hc.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				res.Body.Close()
				mu.Lock()
				n++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	sigs, answers := counted.signatures.Load(), counted.answers.Load()
	t.Logf("%d requests, %d answers under %d signatures: %.1f answers a signature", n, answers, sigs, float64(answers)/float64(sigs))
	if answers != uint64(n) || float64(answers) < 1.5*float64(sigs) {
		t.Fatalf("%d answers of %d requests under %d signatures: not batched", answers, n, sigs)
	}
}

// signatureCounter is an access.Observer that counts the signatures made
// and the answers they cover, and nothing else.
type signatureCounter struct{ signatures, answers atomic.Uint64 }

func (*signatureCounter) HashWaited(time.Duration)           {}
func (*signatureCounter) Hashed(time.Duration)               {}
func (*signatureCounter) CacheLookup(access.CacheName, bool) {}
func (c *signatureCounter) ResponsesSigned(answers int) {
	c.signatures.Add(1)
	c.answers.Add(uint64(answers))
}
