package caddymodule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestStart_UnusableDataDirIsAnErrorNamingDataDir(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	msg := loadError(t, embeddedConfig(filepath.Join(notADir, "data")))
	if !strings.Contains(msg, "app_access: data_dir") {
		t.Fatalf("load error %q: want one naming data_dir", msg)
	}
}

func TestProvision_UnknownPlaceholdersInSettingsSurvive(t *testing.T) {
	t.Setenv("AA_TEST_HOST", "db.example")
	a := &App{MongoDBURI: "mongodb://user:p{ss}w@{env.AA_TEST_HOST}/", DataDir: "/srv/{data}"}
	if err := a.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	if a.uri != "mongodb://user:p{ss}w@db.example/" {
		t.Errorf("mongodb_uri expanded to %q", a.uri)
	}
	if !strings.HasSuffix(a.dataDir, "/srv/{data}") {
		t.Errorf("data_dir expanded to %q", a.dataDir)
	}
}

func TestSessionCleanup_APanicIsLoggedNotFatal(t *testing.T) {
	core, logs := observer.New(zapcore.ErrorLevel)
	a := &App{logger: zap.New(core)}
	a.deleteExpiredSessions(nil) // a nil service panics inside
	if logs.FilterMessage("deleting expired sessions panicked").Len() != 1 {
		t.Fatalf("logged %v, want the panic", logs.All())
	}
}

func TestStart_ABadKeyFileIsAnErrorNamingTheFile(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "file.key")
	if err := os.WriteFile(keyFile, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	msg := loadError(t, embeddedConfig(dir))
	// The operator set no file_key: the message names the file it read.
	if !strings.Contains(msg, keyFile+": must be the base64 encoding of 32 bytes") {
		t.Fatalf("load error %q: want one naming %s", msg, keyFile)
	}
	if b, err := os.ReadFile(keyFile); err != nil || string(b) != "not a key\n" {
		t.Fatalf("the key file was changed: %q %v", b, err)
	}
}
