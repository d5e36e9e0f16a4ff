package webhook_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// BenchmarkOutbox_WhatAnEventAddsToItsRequest measures the outbox
// listener, which runs on the request's goroutine: for an application
// with no endpoint, and with 1 and 5 endpoints subscribed to the event (a
// delivery insert each), on SQLite and on the MongoDB-protocol test
// server. No dispatcher runs.
func BenchmarkOutbox_WhatAnEventAddsToItsRequest(b *testing.B) {
	for _, st := range []struct {
		name  string
		store func(testing.TB) access.Store
	}{
		{"SQLite", func(tb testing.TB) access.Store { return storetest.SQLite(tb) }},
		{"MongoDB", func(tb testing.TB) access.Store { return storetest.Mongo(tb) }},
	} {
		for _, endpoints := range []int{0, 1, 5} {
			b.Run(fmt.Sprintf("%s/endpoints=%d", st.name, endpoints), func(b *testing.B) {
				r := newRig(b, st.store(b), nil, "")
				for range endpoints {
					r.hook(b, "https://example.com/hook", access.EventUserSignedUp)
				}
				outbox := access.NewWebhookOutbox(r.store, access.WebhookOutboxConfig{OnError: func(err error) { b.Fatal(err) }})
				ctx := context.Background()
				e := access.Event{Kind: access.EventUserSignedUp, At: r.svc.Now(), AppID: r.app.ID, UserID: "u", Username: "bench"}
				outbox.Listen(ctx, e) // fills the cache
				b.ResetTimer()
				for range b.N {
					outbox.Listen(ctx, e)
				}
			})
		}
	}
}
