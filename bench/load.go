package main

import (
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// result is what one load run measured.
type result struct {
	requests int
	errors   int
	duration time.Duration
	p50, p99 time.Duration
	// serverCPU is the CPU time the server spent during the run (Linux;
	// 0 elsewhere): divided by the requests, a cost that the other load
	// on a shared machine does not move as it moves the rates.
	serverCPU time.Duration
	// clientCPU is the load generator's own CPU time during the run: it
	// shares the machine, so a rate ratio weighs it in with the server's.
	clientCPU time.Duration
}

// cpuPerRequest is the server's CPU time per request, or 0 when unknown.
func (r result) cpuPerRequest() time.Duration {
	if r.requests == 0 {
		return 0
	}
	return r.serverCPU / time.Duration(r.requests)
}

func (r result) rate() float64 { return float64(r.requests) / r.duration.Seconds() }

// newRequest builds the i-th request of a run.
type newRequest func(i int64) *http.Request

// wantStatus is the status every request of a run must answer.
type wantStatus int

func transport(conns int) *http.Transport {
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		DisableCompression:  true,
	}
}

// closedLoop keeps conns requests in flight for d and measures them.
func closedLoop(conns int, d time.Duration, build newRequest, want wantStatus) result {
	end := time.Now().Add(d)
	return measure(conns, build, want, func() bool { return time.Now().Before(end) })
}

// openLoop sends rate requests per second for d from a pool of workers,
// paced in 1 ms ticks, and measures them: the latency a client sees at
// that load rather than at saturation. A request whose tick finds every
// worker busy is dropped and counted as an error.
func openLoop(rate float64, workers int, d time.Duration, build newRequest, want wantStatus) result {
	tickets := make(chan struct{}, workers*4)
	var dropped int
	go func() {
		defer close(tickets)
		start, sent := time.Now(), 0
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for now := range tick.C {
			if now.Sub(start) >= d {
				return
			}
			for due := int(rate * now.Sub(start).Seconds()); sent < due; sent++ {
				select {
				case tickets <- struct{}{}:
				default:
					dropped++
				}
			}
		}
	}()
	r := measure(workers, build, want, func() bool { _, ok := <-tickets; return ok })
	r.errors += dropped // the pacer has finished: tickets is closed
	return r
}

// measure runs workers that each send a request whenever next allows, until
// it refuses, and measures every request.
func measure(workers int, build newRequest, want wantStatus, next func() bool) result {
	client := &http.Client{Transport: transport(workers), Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	var (
		n    atomic.Int64
		errs atomic.Int64
		wg   sync.WaitGroup
		mu   sync.Mutex
		all  []time.Duration
	)
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 4096)
			for next() {
				lat = append(lat, doOne(client, build(n.Add(1)), want, &errs))
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return summarize(all, int(errs.Load()), time.Since(start))
}

func doOne(client *http.Client, req *http.Request, want wantStatus, errs *atomic.Int64) time.Duration {
	t0 := time.Now()
	res, err := client.Do(req)
	if err == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		if res.StatusCode != int(want) {
			errs.Add(1)
		}
	} else {
		errs.Add(1)
	}
	return time.Since(t0)
}

func summarize(lat []time.Duration, errs int, d time.Duration) result {
	slices.Sort(lat)
	r := result{requests: len(lat), errors: errs, duration: d}
	if len(lat) > 0 {
		r.p50 = lat[len(lat)*50/100]
		r.p99 = lat[min(len(lat)-1, len(lat)*99/100)]
	}
	return r
}
