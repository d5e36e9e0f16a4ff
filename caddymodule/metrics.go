package caddymodule

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
)

// App Access's Prometheus metrics. The collectors are made once per
// process and registered with the metrics registry of every config load
// (Caddy makes a new one each time), so counts carry over a reload and a
// second registration is no error. Every label value comes from a fixed
// set: route patterns, problem codes, cache and store operation names;
// never a user, an address, a key or a code.
var (
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "app_access_requests_total",
		Help: "Requests answered by App Access, by API (client or management), endpoint (route pattern, or unmatched) and outcome (ok or the problem code).",
	}, []string{"api", "endpoint", "outcome"})
	loginsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "app_access_logins_total",
		Help: "Logins (POST /auth/login), by result: ok or the problem code.",
	}, []string{"result"})
	signUpsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "app_access_sign_ups_total",
		Help: "Sign-ups, by method (password or license_code) and result: ok or the problem code.",
	}, []string{"method", "result"})
	activationsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "app_access_activations_total",
		Help: "License activations (POST /activate_license), by result: ok or the problem code.",
	}, []string{"result"})
	hashWaitSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "app_access_password_hash_wait_seconds",
		Help:    "Time a password hash waited for an argon2id slot.",
		Buckets: []float64{0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5},
	})
	hashSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "app_access_password_hash_seconds",
		Help:    "Time one argon2id hash took.",
		Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5},
	})
	cacheLookupsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "app_access_cache_lookups_total",
		Help: "Lookups in the service's caches, by cache and result (hit or miss).",
	}, []string{"cache", "result"})
	webhookAttemptsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "app_access_webhook_attempts_total",
		Help: "Webhook delivery attempts this instance made, by the delivery's status after the attempt: delivered, pending (to be retried) or failed.",
	}, []string{"outcome"})
	webhookAttemptSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "app_access_webhook_attempt_duration_seconds",
		Help:    "Time one webhook delivery attempt took, from dialling to the end of the answer.",
		Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15},
	})
	storeSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "app_access_store_operation_duration_seconds",
		Help:    "Latency of store operations on the request path, by operation, whatever their result.",
		Buckets: prometheus.DefBuckets,
	}, []string{"operation"})
	feedLagSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "app_access_change_feed_lag_seconds",
		Help:    "Time from a change on another instance until this instance evicted what it changed (the change feed's lag, by the two instances' clocks).",
		Buckets: []float64{0.05, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 10, 30},
	})
	feedUp = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "app_access_change_feed_up",
		Help: "1 while the change feed answers, 0 while it does not (cached answers are then trusted for at most staleness).",
	})
	responseSignaturesTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "app_access_response_signatures_total",
		Help: "Ed25519 signatures made over client API answers; under load one covers a batch (app_access_signed_responses_total / this is the mean batch).",
	})
	signedResponsesTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "app_access_signed_responses_total",
		Help: "Client API answers signed.",
	})
	feedFlushesTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "app_access_change_feed_flushes_total",
		Help: "Times this instance emptied its caches because it missed pruned entries of the change feed.",
	})
)

// collectors are every App Access collector.
var collectors = []prometheus.Collector{requestsTotal, loginsTotal, signUpsTotal, activationsTotal,
	hashWaitSeconds, hashSeconds, cacheLookupsTotal, storeSeconds, feedLagSeconds, feedUp, feedFlushesTotal,
	webhookAttemptsTotal, webhookAttemptSeconds, responseSignaturesTotal, signedResponsesTotal}

// registerMetrics registers the collectors with a config's registry; ones
// already registered there are fine.
func registerMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return fmt.Errorf("registering App Access metrics: %w", err)
			}
		}
	}
	return nil
}

// outcomes are the values of the outcome and result labels: ok, every
// problem code, and other for an answer that is neither.
var outcomes = []string{"ok", "other",
	string(access.CodeInvalidApplication), string(access.CodeValidationFailed), string(access.CodeUsernameTaken),
	string(access.CodeInvalidCredentials), string(access.CodeLicenseInvalid), string(access.CodeLicenseUsed),
	string(access.CodeDeviceRequired), string(access.CodeDeviceMismatch), string(access.CodeMembershipInactive),
	string(access.CodeUserBanned), string(access.CodeAuthenticationRequired), string(access.CodeSessionExpired),
	string(access.CodeNotFound), string(access.CodeConflict), string(access.CodePayloadTooLarge),
	string(access.CodeTooManyAttempts), string(access.CodeMethodNotAllowed), string(httpx.CodeRangeNotSatisfiable),
	string(access.CodeUnavailable), string(access.CodeInternal)}

// unmatched is the endpoint of a request no route serves.
const unmatched = "unmatched"

// countRequest counts one answer of an API: the request counter, and the
// login, sign-up and activation counters for those endpoints.
func countRequest(api, endpoint, outcome string) {
	if endpoint == "" {
		endpoint = unmatched
	}
	requestsTotal.WithLabelValues(api, endpoint, outcome).Inc()
	if api != "client" {
		return
	}
	switch endpoint {
	case "POST /auth/login":
		loginsTotal.WithLabelValues(outcome).Inc()
	case "POST /sign_up":
		signUpsTotal.WithLabelValues("password", outcome).Inc()
	case "POST /sign_up_with_license_code":
		signUpsTotal.WithLabelValues("license_code", outcome).Inc()
	case "POST /activate_license":
		activationsTotal.WithLabelValues(outcome).Inc()
	}
}

// outcomeRecorder passes an answer through and keeps its status and the
// beginning of a problem body, to name the answer's outcome.
type outcomeRecorder struct {
	http.ResponseWriter
	status  int
	problem []byte // the beginning of an application/problem+json body
	isProb  bool
}

// maxProblemBytes bounds what the recorder keeps of a problem body.
const maxProblemBytes = 8 << 10

func (o *outcomeRecorder) WriteHeader(status int) {
	if o.status == 0 {
		o.status = status
		o.isProb = strings.HasPrefix(o.Header().Get("Content-Type"), "application/problem+json")
	}
	o.ResponseWriter.WriteHeader(status)
}

func (o *outcomeRecorder) Write(p []byte) (int, error) {
	if o.status == 0 {
		o.WriteHeader(http.StatusOK)
	}
	if o.isProb && len(o.problem) < maxProblemBytes {
		o.problem = append(o.problem, p[:min(len(p), maxProblemBytes-len(o.problem))]...)
	}
	return o.ResponseWriter.Write(p)
}

// reset makes o ready to record another answer, keeping the memory of
// its problem buffer.
func (o *outcomeRecorder) reset() {
	*o = outcomeRecorder{problem: o.problem[:0]}
}

// Unwrap gives http.ResponseController the underlying writer.
func (o *outcomeRecorder) Unwrap() http.ResponseWriter { return o.ResponseWriter }

// outcome is ok for a success, the problem's code for a refusal (other for
// a refusal that is not one of App Access's problems).
func (o *outcomeRecorder) outcome() string {
	if o.status != 0 && o.status < 400 {
		return "ok"
	}
	var p struct {
		Code string `json:"code"`
	}
	if o.status == 0 || json.Unmarshal(o.problem, &p) != nil || !slices.Contains(outcomes, p.Code) {
		return "other"
	}
	return p.Code
}

// metricsObserver turns the service's measurements into metrics.
type metricsObserver struct {
	// cacheLookups are the lookup counters of each of access.CacheNames:
	// a lookup, several per request, then costs no hashing of labels.
	cacheLookups map[access.CacheName]*cacheLookupCounters
}

// cacheLookupCounters are the series of one cache's hits and misses.
type cacheLookupCounters struct{ hit, miss lazyCounter }

// lazyCounter is one series of a counter vector, resolved when it first
// counts: like WithLabelValues, it adds no series that never counted.
type lazyCounter struct {
	vec    *prometheus.CounterVec
	labels []string
	once   sync.Once
	series prometheus.Counter
}

// Inc counts one.
func (l *lazyCounter) Inc() {
	l.once.Do(func() { l.series = l.vec.WithLabelValues(l.labels...) })
	l.series.Inc()
}

// newMetricsObserver returns an observer with the lookup counters of
// every access.CacheNames cache.
func newMetricsObserver() *metricsObserver {
	o := &metricsObserver{cacheLookups: make(map[access.CacheName]*cacheLookupCounters, len(access.CacheNames))}
	for _, name := range access.CacheNames {
		o.cacheLookups[name] = &cacheLookupCounters{
			hit:  lazyCounter{vec: cacheLookupsTotal, labels: []string{string(name), "hit"}},
			miss: lazyCounter{vec: cacheLookupsTotal, labels: []string{string(name), "miss"}},
		}
	}
	return o
}

func (*metricsObserver) HashWaited(wait time.Duration) { hashWaitSeconds.Observe(wait.Seconds()) }
func (*metricsObserver) Hashed(took time.Duration)     { hashSeconds.Observe(took.Seconds()) }
func (o *metricsObserver) CacheLookup(cache access.CacheName, hit bool) {
	c, ok := o.cacheLookups[cache]
	switch {
	case !ok: // not one of access.CacheNames
		result := "miss"
		if hit {
			result = "hit"
		}
		cacheLookupsTotal.WithLabelValues(string(cache), result).Inc()
	case hit:
		c.hit.Inc()
	default:
		c.miss.Inc()
	}
}

func (*metricsObserver) ResponsesSigned(answers int) {
	responseSignaturesTotal.Inc()
	signedResponsesTotal.Add(float64(answers))
}

var _ access.Observer = (*metricsObserver)(nil)
