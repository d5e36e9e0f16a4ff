package caddymodule

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/sqlitestore"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

var cheapArgon2 = access.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}

func TestFileKey_AMissingKeyFileIsMadeOnlyForAStoreThatHoldsNoData(t *testing.T) {
	ctx := context.Background()
	fill := map[string]func(t *testing.T, svc *access.Service){
		"nothing": func(*testing.T, *access.Service) {},
		"an application": func(t *testing.T, svc *access.Service) {
			name := "an app"
			if _, err := svc.CreateApp(ctx, access.AppSettings{Name: &name}); err != nil {
				t.Fatal(err)
			}
		},
		"an administrator only": func(t *testing.T, svc *access.Service) {
			if _, err := svc.CreateAdmin(ctx, "root", "vortex-lamp-71"); err != nil {
				t.Fatal(err)
			}
		},
	}
	for _, tt := range []struct {
		store, holds string
		mongo        bool
		wantNewKey   bool
	}{
		{"SQLite", "nothing", false, true},
		{"SQLite", "an application", false, false},
		{"SQLite", "an administrator only", false, false},
		{"MongoDB", "nothing", true, true},
		{"MongoDB", "an application", true, false},
	} {
		t.Run(tt.store+" holding "+tt.holds, func(t *testing.T) {
			var store access.Store = storetest.SQLite(t)
			a := &App{dataDir: t.TempDir()}
			if tt.mongo {
				store, a.uri = storetest.Mongo(t), "mongodb://db.example/"
			}
			fill[tt.holds](t, access.NewService(store, access.Config{Argon2: cheapArgon2}))
			key, err := a.loadFileKey(ctx, store)
			keyFile := filepath.Join(a.dataDir, fileKeyName)
			_, statErr := os.Stat(keyFile)
			if tt.wantNewKey {
				if err != nil || len(key) != access.FileKeySize || statErr != nil {
					t.Fatalf("fresh store: key of %d bytes, %v; key file: %v", len(key), err, statErr)
				}
				return
			}
			var lost *lostFileKeyError
			if !errors.As(err, &lost) {
				t.Fatalf("a store holding %s without its key file: key of %d bytes, error %v; want the start refused", tt.holds, len(key), err)
			}
			if !errors.Is(statErr, os.ErrNotExist) {
				t.Fatalf("a key file was made: %v", statErr)
			}
			msg := err.Error()
			if !strings.Contains(msg, keyFile) || !strings.Contains(msg, "restore") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: want one line naming %s and saying to restore it", msg, keyFile)
			}
		})
	}
}

func TestStart_AMissingKeyFileNextToADatabaseWithDataStopsTheStart(t *testing.T) {
	dir := t.TempDir()
	store, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	name := "an app"
	if _, err := access.NewService(store, access.Config{Argon2: cheapArgon2}).CreateApp(context.Background(), access.AppSettings{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	msg := loadError(t, embeddedConfig(dir))
	keyFile := filepath.Join(dir, fileKeyName)
	if !strings.Contains(msg, "the file key "+keyFile+" is missing") || !strings.Contains(msg, "restore that file from a backup") {
		t.Fatalf("load error %q: want one naming %s and saying to restore it", msg, keyFile)
	}
	if _, err := os.Stat(keyFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a new key file was made: %v", err)
	}
}
