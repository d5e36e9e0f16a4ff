package client

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

func TestParseIOReg_FindsThePlatformUUID(t *testing.T) {
	out := `+-o J274AP  <class IOPlatformExpertDevice, id 0x100000110, registered, matched, active, busy 0 (0 ms), retain 35>
    {
      "IOPlatformSerialNumber" = "C02XXXXXXX"
      "IOPlatformUUID" = "564D8A1C-5E3B-4C3A-9F3A-1B2C3D4E5F60"
      "manufacturer" = <"Apple Inc.">
    }`
	got, err := parseIOReg(out)
	if err != nil || got != "564D8A1C-5E3B-4C3A-9F3A-1B2C3D4E5F60" {
		t.Fatalf("%q, %v", got, err)
	}
	if _, err := parseIOReg(`"IOPlatformSerialNumber" = "C02"`); !errors.Is(err, ErrNoMachineID) {
		t.Fatalf("without a UUID: %v", err)
	}
}

func TestParseRegQuery_FindsTheMachineGuid(t *testing.T) {
	out := "\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Cryptography\r\n    MachineGuid    REG_SZ    6f1a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8\r\n\r\n"
	got, err := parseRegQuery(out)
	if err != nil || got != "6f1a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8" {
		t.Fatalf("%q, %v", got, err)
	}
	if _, err := parseRegQuery("ERROR: The system was unable to find the specified registry key or value."); !errors.Is(err, ErrNoMachineID) {
		t.Fatalf("without a value: %v", err)
	}
}

// TestHashMachineID_IsStableSaltedAndHidesTheID.
func TestHashMachineID_IsStableSaltedAndHidesTheID(t *testing.T) {
	id := "564D8A1C-5E3B-4C3A-9F3A-1B2C3D4E5F60"
	a, b := hashMachineID(id, "game-one"), hashMachineID(id, "game-one")
	if a != b || len(a) != 64 {
		t.Fatalf("not stable: %s %s", a, b)
	}
	if a == hashMachineID(id, "game-two") {
		t.Fatal("two applications see the same id")
	}
	if a != hashMachineID(" "+id+"\n", "game-one") || a != hashMachineID("564d8a1c-5e3b-4c3a-9f3a-1b2c3d4e5f60", "game-one") {
		t.Fatal("spacing or case of the raw id changes the result")
	}
}

// TestHardwareID_OnThisMachine is stable from call to call where the
// system has a machine id.
func TestHardwareID_OnThisMachine(t *testing.T) {
	a, err := HardwareID(context.Background(), "app")
	if errors.Is(err, ErrNoMachineID) {
		t.Skipf("%s has no machine id here", runtime.GOOS)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := HardwareID(context.Background(), "app")
	if err != nil || a != b || len(a) != 64 {
		t.Fatalf("%s then %s (%v)", a, b, err)
	}
}

func TestMachineID_UnknownSystem(t *testing.T) {
	if _, err := machineID(context.Background(), "plan9"); !errors.Is(err, ErrNoMachineID) {
		t.Fatal(err)
	}
}
