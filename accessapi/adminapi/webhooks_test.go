package adminapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestWebhooks_SecretShownOnceSettingsCheckedDeliveriesLogged(t *testing.T) {
	s := newTestServer(t)
	app := s.createApp(nil)
	base := "/apps/" + app.ID + "/webhooks"
	created := decode[wire.Webhook](s, http.StatusCreated, "POST", base,
		map[string]any{"url": "https://example.com/hooks?token=t", "events": []string{"user.signed_up", "user.signed_up", "user.banned"}})
	if !strings.HasPrefix(created.Secret, access.WebhookSecretPrefix) || !created.Enabled || len(created.Events) != 2 {
		t.Fatalf("created %+v, want a whsec_ secret, enabled, two events", created)
	}
	list := decode[wire.Page[wire.Webhook]](s, http.StatusOK, "GET", base, nil)
	shown := decode[wire.Webhook](s, http.StatusOK, "GET", base+"/"+created.ID, nil)
	if len(list.Items) != 1 || list.Items[0].Secret != "" || shown.Secret != "" || shown.URL != created.URL {
		t.Fatalf("listing %+v and %+v: the secret is shown once only", list.Items, shown)
	}
	for _, tt := range []struct {
		name   string
		method string
		path   string
		body   any
		status int
		code   access.Code
	}{
		{"no url", "POST", base, map[string]any{"events": []string{"user.banned"}}, 422, access.CodeValidationFailed},
		{"no events", "POST", base, map[string]any{"url": "https://example.com/"}, 422, access.CodeValidationFailed},
		{"an unknown event", "POST", base, map[string]any{"url": "https://example.com/", "events": []string{"app.created"}}, 422, access.CodeValidationFailed},
		{"not http", "POST", base, map[string]any{"url": "ftp://example.com/", "events": []string{"user.banned"}}, 422, access.CodeValidationFailed},
		{"a password in the url", "POST", base, map[string]any{"url": "https://u:p@example.com/", "events": []string{"user.banned"}}, 422, access.CodeValidationFailed},
		{"no events left", "PATCH", base + "/" + created.ID, map[string]any{"events": []string{}}, 422, access.CodeValidationFailed},
		{"another application's endpoint", "GET", "/apps/" + s.createApp(nil).ID + "/webhooks/" + created.ID, nil, 404, access.CodeNotFound},
		{"no such delivery", "POST", base + "/" + created.ID + "/deliveries/01a205b6-9068-772d-8619-dbdec5275b13/redeliver", nil, 404, access.CodeNotFound},
		{"a cursor that is not one", "GET", base + "/" + created.ID + "/deliveries?after=x", nil, 422, access.CodeValidationFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := s.do(tt.method, tt.path, nil, tt.body)
			if a.status != tt.status || a.problem(t).Code != string(tt.code) {
				t.Fatalf("status %d, body %s; want %d %s", a.status, a.raw, tt.status, tt.code)
			}
		})
	}

	ctx := context.Background()
	a, err := s.svc.App(ctx, app.ID)
	must(t, err)
	u, err := s.svc.SignUp(ctx, a, access.SignUpRequest{Username: "hooked", Password: "vortex-lamp-71"})
	must(t, err)
	deliveries := decode[wire.Page[wire.WebhookDelivery]](s, http.StatusOK, "GET", base+"/"+created.ID+"/deliveries", nil)
	if len(deliveries.Items) != 1 {
		t.Fatalf("deliveries %+v, want the sign-up's", deliveries.Items)
	}
	d := deliveries.Items[0]
	if d.Event != "user.signed_up" || d.Status != "pending" || d.NextAttemptAt == nil || !strings.Contains(string(d.Payload), u.ID) {
		t.Fatalf("delivery %+v", d)
	}
	path := base + "/" + created.ID + "/deliveries/" + d.ID
	if a := s.do("POST", path+"/redeliver", nil, nil); a.status != http.StatusConflict {
		t.Fatalf("redelivering a pending delivery: status %d, want 409", a.status)
	}
	one := decode[wire.WebhookDelivery](s, http.StatusOK, "GET", path, nil)
	if one.ID != d.ID || one.AttemptLog != nil && len(one.AttemptLog) != 0 {
		t.Fatalf("delivery %+v", one)
	}

	disabled := decode[wire.Webhook](s, http.StatusOK, "PATCH", base+"/"+created.ID, map[string]any{"enabled": false})
	if disabled.Enabled || disabled.URL != created.URL {
		t.Fatalf("patched %+v", disabled)
	}
	_, err = s.svc.SignUp(ctx, a, access.SignUpRequest{Username: "unhooked", Password: "vortex-lamp-71"})
	must(t, err)
	if got := decode[wire.Page[wire.WebhookDelivery]](s, http.StatusOK, "GET", base+"/"+created.ID+"/deliveries", nil); len(got.Items) != 1 {
		t.Fatalf("a disabled endpoint got a delivery: %+v", got.Items)
	}
	if a := s.do("DELETE", base+"/"+created.ID, nil, nil); a.status != http.StatusNoContent {
		t.Fatalf("delete: status %d", a.status)
	}
	if a := s.do("GET", base+"/"+created.ID, nil, nil); a.status != http.StatusNotFound {
		t.Fatalf("a deleted endpoint: status %d", a.status)
	}
}

func TestWebhookRotation_NewSecretShownOnceOverlapBoundedAndAnnounced(t *testing.T) {
	s := newTestServer(t)
	app := s.createApp(nil)
	base := "/apps/" + app.ID + "/webhooks"
	created := decode[wire.Webhook](s, http.StatusCreated, "POST", base,
		map[string]any{"url": "https://example.com/hooks", "events": []string{"user.signed_up"}})
	rotate := base + "/" + created.ID + "/rotate_secret"
	for _, tt := range []struct {
		name    string
		path    string
		body    any
		status  int
		code    access.Code
		overlap time.Duration // of a 200: until when the old secret signs; 0 for not at all
	}{
		{"without a body the overlap is a day", rotate, nil, 200, "", access.DefaultWebhookSecretOverlap},
		{"an overlap of an hour", rotate, map[string]any{"overlap_seconds": 3600}, 200, "", time.Hour},
		{"an overlap of seven days", rotate, map[string]any{"overlap_seconds": 604800}, 200, "", 7 * 24 * time.Hour},
		{"an overlap of 0 stops the old secret at once", rotate, map[string]any{"overlap_seconds": 0}, 200, "", 0},
		{"a negative overlap", rotate, map[string]any{"overlap_seconds": -1}, 422, access.CodeValidationFailed, 0},
		{"an overlap past seven days", rotate, map[string]any{"overlap_seconds": 604801}, 422, access.CodeValidationFailed, 0},
		{"an overlap that is not a number", rotate, map[string]any{"overlap_seconds": "1h"}, 422, access.CodeValidationFailed, 0},
		{"an unknown field", rotate, map[string]any{"overlap": 60}, 422, access.CodeValidationFailed, 0},
		{"no such endpoint", base + "/0193a6a2-7b41-7c2e-9d4e-5f6a7b8c9d0e/rotate_secret", nil, 404, access.CodeNotFound, 0},
		{"another application's endpoint", "/apps/" + s.createApp(nil).ID + "/webhooks/" + created.ID + "/rotate_secret", nil, 404, access.CodeNotFound, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := time.Now().Add(-time.Second)
			a := s.do("POST", tt.path, nil, tt.body)
			if a.status != tt.status {
				t.Fatalf("status %d, body %s; want %d", a.status, a.raw, tt.status)
			}
			if tt.status != http.StatusOK {
				p := a.problem(t)
				if p.Code != string(tt.code) {
					t.Fatalf("problem %s, want %s", a.raw, tt.code)
				}
				if tt.status == 422 && !strings.Contains(string(a.raw), `"overlap`) {
					t.Errorf("the problem %s does not name the field", a.raw)
				}
				return
			}
			var got wire.Webhook
			must(t, json.Unmarshal(a.raw, &got))
			if !strings.HasPrefix(got.Secret, access.WebhookSecretPrefix) || got.Secret == created.Secret || got.ID != created.ID ||
				a.header.Get("Cache-Control") != "no-store" {
				t.Fatalf("rotated %+v (Cache-Control %q), want the endpoint with a new whsec_ secret, not cached", got, a.header.Get("Cache-Control"))
			}
			if tt.overlap == 0 {
				if got.PreviousSecretExpiresAt != nil {
					t.Fatalf("previous_secret_expires_at %s, want none", *got.PreviousSecretExpiresAt)
				}
			} else {
				if got.PreviousSecretExpiresAt == nil {
					t.Fatal("no previous_secret_expires_at during the overlap")
				}
				until, err := time.Parse(time.RFC3339, *got.PreviousSecretExpiresAt)
				must(t, err)
				if until.Before(before.Add(tt.overlap)) || until.After(time.Now().Add(tt.overlap+time.Second)) {
					t.Fatalf("previous_secret_expires_at %s, want %s from now", until, tt.overlap)
				}
			}
			shown := decode[wire.Webhook](s, http.StatusOK, "GET", base+"/"+created.ID, nil)
			if shown.Secret != "" || !reflect.DeepEqual(shown.PreviousSecretExpiresAt, got.PreviousSecretExpiresAt) {
				t.Fatalf("shown %+v: the secret is shown once only, the overlap always", shown)
			}
		})
	}
}
