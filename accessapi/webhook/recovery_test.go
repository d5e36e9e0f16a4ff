package webhook_test

import (
	"context"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/webhook"
)

func TestDelivery_ADispatcherThatDiedMidAttemptIsTakenOver(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		// dead is the attempt the dead dispatcher left.
		dead access.DeliveryAttempt
		// sends is how many requests the receiver then gets.
		sends      int
		wantStatus access.DeliveryStatus
		attempts   int
	}{
		{"it claimed and never recorded a result", access.DeliveryAttempt{Number: 1}, 1, access.DeliveryDelivered, 2},
		{"it recorded the result but not the delivery's state",
			access.DeliveryAttempt{Number: 1, Finished: true, StatusCode: 204, Outcome: access.DeliveryDelivered}, 0, access.DeliveryDelivered, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, storetest.SQLite(t), nil, "")
			rc := newReceiver(t, nil)
			h := r.hook(t, rc.URL, access.EventUserSignedUp)
			r.signUp(t, "orphan")
			dead := tt.dead
			dead.DeliveryID, dead.ClaimedAt = r.onlyDelivery(t, h.ID).ID, r.svc.Now().Add(-time.Minute)
			if err := r.store.InsertDeliveryAttempt(ctx, &dead); err != nil {
				t.Fatal(err)
			}
			r.run(t, webhook.Config{Timeout: time.Second, AbandonAfter: 30 * time.Second})
			d := waitStatus(t, r, h.ID, tt.wantStatus)
			if d.Attempts != tt.attempts {
				t.Fatalf("delivery %+v, want %d attempts", d, tt.attempts)
			}
			time.Sleep(100 * time.Millisecond)
			if n := rc.count(); n != tt.sends {
				t.Fatalf("the receiver got %d requests, want %d", n, tt.sends)
			}
		})
	}
}
