package caddymodule

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads the admin endpoint's /metrics into one value a series: a
// counter's value or a histogram's count, keyed name{label="value",…} with
// the labels in name order.
func scrape(t *testing.T) map[string]float64 {
	t.Helper()
	res, err := http.Get(fmt.Sprintf("http://localhost:%d/metrics", adminPort))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("/metrics answered %d", res.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			key := name + labelText(m.GetLabel())
			switch {
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				out[key] = m.GetGauge().GetValue()
			case m.Histogram != nil:
				out[key+"#count"] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

func labelText(labels []*dto.LabelPair) string {
	if len(labels) == 0 {
		return ""
	}
	s := "{"
	for i, l := range labels {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf("%s=%q", l.GetName(), l.GetValue())
	}
	return s + "}"
}

// TestMetrics_AdminEndpointShowsTheSeriesAfterTraffic: after sign-ups,
// logins, an activation, header auth, a file download and management
// calls, /metrics on the admin endpoint has App Access's series, with
// counts that moved by exactly the requests made.
func TestMetrics_AdminEndpointShowsTheSeriesAfterTraffic(t *testing.T) {
	startServer(t, "", "")
	before := scrape(t)
	a := createApp(t, nil)
	activeUser(t, a, "metrics-user", "vortex-lamp-71")
	expect(t, login(t, a, map[string]any{"username": "metrics-user", "password": "vortex-lamp-71"}, ""), 200, "")
	expect(t, login(t, a, map[string]any{"username": "metrics-user", "password": "wrong-password"}, ""), 401, "invalid_credentials")
	for range 2 { // the second is served from the credential cache
		expect(t, request(t, "GET", apiBase+"/app_context", a.headers("x-api-username", "metrics-user", "x-api-password", "vortex-lamp-71"), nil), 200, "")
	}
	expect(t, request(t, "POST", apiBase+"/sign_up", a.headers(), map[string]any{"username": "metrics-user", "password": "another-pass-1"}), 409, "username_taken")
	expect(t, request(t, "GET", apiBase+"/no/such/path", nil, nil), 404, "not_found")
	after := scrape(t)
	if up := after["app_access_change_feed_up"]; up != 1 {
		t.Errorf("app_access_change_feed_up = %v while the feed answers, want 1", up)
	}

	for _, tc := range []struct {
		series string
		delta  float64 // 0: must have grown; negative: must be present
	}{
		{`app_access_requests_total{api="management",endpoint="POST /app_access/apps",outcome="ok"}`, 1},
		{`app_access_requests_total{api="management",endpoint="POST /app_access/apps/{app}/licenses",outcome="ok"}`, 1},
		{`app_access_requests_total{api="client",endpoint="POST /auth/login",outcome="ok"}`, 1},
		{`app_access_requests_total{api="client",endpoint="POST /auth/login",outcome="invalid_credentials"}`, 1},
		{`app_access_requests_total{api="client",endpoint="GET /app_context",outcome="ok"}`, 2},
		{`app_access_requests_total{api="client",endpoint="unmatched",outcome="not_found"}`, 1},
		{`app_access_logins_total{result="ok"}`, 1},
		{`app_access_logins_total{result="invalid_credentials"}`, 1},
		{`app_access_sign_ups_total{method="password",result="ok"}`, 1},
		{`app_access_sign_ups_total{method="password",result="username_taken"}`, 1},
		{`app_access_activations_total{result="ok"}`, 1},
		{`app_access_password_hash_seconds#count`, 0},
		{`app_access_password_hash_wait_seconds#count`, 0},
		{`app_access_cache_lookups_total{cache="apps",result="hit"}`, 0},
		{`app_access_cache_lookups_total{cache="credentials",result="hit"}`, 0},
		{`app_access_cache_lookups_total{cache="credentials",result="miss"}`, 0},
		{`app_access_store_operation_duration_seconds{operation="app_by_key"}#count`, 0},
		{`app_access_store_operation_duration_seconds{operation="insert_session"}#count`, 1},
		{`app_access_change_feed_lag_seconds#count`, -1}, // another instance's entries only (TestFeedTailer_ReportsTheLag…)
		{`app_access_change_feed_flushes_total`, -1},
		{`app_access_response_signatures_total`, 0},
		{`app_access_signed_responses_total`, 0},
	} {
		got, ok := after[tc.series]
		if !ok {
			t.Errorf("no series %s", tc.series)
			continue
		}
		if tc.delta < 0 { // only present
			continue
		}
		d := got - before[tc.series]
		if (tc.delta == 0 && d <= 0) || (tc.delta != 0 && d != tc.delta) {
			t.Errorf("%s moved by %v, want %v", tc.series, d, tc.delta)
		}
	}
}

// TestMetrics_RegisterOnEveryConfigLoad: each config load has a new
// pedantic registry; the collectors register with each, twice is no
// error, and a reload keeps the counts.
func TestMetrics_RegisterOnEveryConfigLoad(t *testing.T) {
	first, second := prometheus.NewPedanticRegistry(), prometheus.NewPedanticRegistry()
	for _, reg := range []*prometheus.Registry{first, first, second} {
		if err := registerMetrics(reg); err != nil {
			t.Fatal(err)
		}
	}
	countRequest("client", "POST /auth/login", "ok")
	for _, reg := range []*prometheus.Registry{first, second} {
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range families {
			found = found || f.GetName() == "app_access_logins_total"
		}
		if !found {
			t.Fatal("app_access_logins_total is not gathered")
		}
	}
}
