package mongostore_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/appaccess/appaccess/accessapi/mongostore"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// TestAdminByName_DocumentsFromBeforePendingSecretsReadInTheNewShape: an
// administrator written before pending TOTP secrets were kept apart held an
// enrolment begun and not confirmed as a totp_secret not enabled; it reads
// as the pending secret, and an enabled one stays enabled.
func TestAdminByName_DocumentsFromBeforePendingSecretsReadInTheNewShape(t *testing.T) {
	ctx := context.Background()
	storetest.URI(t)
	db := storetest.Database(t)
	s := mongostore.New(db)
	if err := s.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name             string
		enabled          bool
		current, pending string
	}{
		{name: "begun", enabled: false, current: "", pending: "OLDPENDING"},
		{name: "enabled", enabled: true, current: "OLDENABLED", pending: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			secret := tc.current + tc.pending
			if _, err := db.Collection("admins").InsertOne(ctx, bson.D{{Key: "_id", Value: tc.name}, {Key: "password_hash", Value: "h"},
				{Key: "totp_secret", Value: secret}, {Key: "totp_enabled", Value: tc.enabled}, {Key: "created_at", Value: at}}); err != nil {
				t.Fatal(err)
			}
			a, err := s.AdminByName(ctx, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if a.TOTPSecret != tc.current || a.TOTPEnabled != tc.enabled || a.PendingTOTPSecret != tc.pending {
				t.Errorf("secret %q enabled %v pending %q, want %q %v %q", a.TOTPSecret, a.TOTPEnabled, a.PendingTOTPSecret,
					tc.current, tc.enabled, tc.pending)
			}
		})
	}
}
