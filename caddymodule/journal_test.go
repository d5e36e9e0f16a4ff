package caddymodule

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

func TestJournalSweeper_RecoversAfterTheConfiguredGrace(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		grace    time.Duration
		wantLeft int
	}{
		{"journal_grace 30s: a record of 40s ago is recovered", 30 * time.Second, 0},
		{"the default of 1m: a record of 40s ago is left to its use case", 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := storetest.SQLite(t)
			svc := access.NewService(store, access.Config{Argon2: cheapArgon2})
			at := time.Now().Add(-40 * time.Second)
			if err := store.InsertJournal(ctx, &access.JournalRecord{ID: uuid.Must(uuid.NewV7()).String(), At: at, Origin: "gone", Events: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			a := &App{JournalGrace: caddy.Duration(tt.grace), logger: zap.NewNop()}
			if err := a.newJournalSweeper().Sweep(ctx, svc); err != nil {
				t.Fatal(err)
			}
			left, err := store.JournalBefore(ctx, time.Now(), 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) != tt.wantLeft {
				t.Fatalf("%d records left, want %d", len(left), tt.wantLeft)
			}
		})
	}
}

func TestConfig_JournalGraceAndSweepIntervalAreCaddyfileSettingsValidated(t *testing.T) {
	for _, tt := range []struct {
		name, caddyfile string
		grace, interval time.Duration
		wantErr         string
	}{
		{"set", "journal_grace 2m\njournal_sweep_interval 30s", 2 * time.Minute, 30 * time.Second, ""},
		{"left out: the defaults", "", 0, 0, ""},
		{"a negative grace", "journal_grace -1m", 0, 0, "must not be negative"},
		{"a negative interval", "journal_sweep_interval -1s", 0, 0, "must not be negative"},
		{"a grace too short to outlast a use case", "journal_grace 1s", 0, 0, "journal_grace must be at least 30s"},
		{"a grace no longer than SQLite's busy wait", "journal_grace 10s", 0, 0, "journal_grace must be at least 30s"},
		{"an interval that would spin", "journal_sweep_interval 1ms", 0, 0, "journal_sweep_interval must be at least 1s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := validatedApp(t, tt.caddyfile)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Validate: %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || time.Duration(a.JournalGrace) != tt.grace || time.Duration(a.JournalSweepInterval) != tt.interval {
				t.Fatalf("grace %v, interval %v, %v; want %v, %v", time.Duration(a.JournalGrace), time.Duration(a.JournalSweepInterval), err, tt.grace, tt.interval)
			}
		})
	}
}
