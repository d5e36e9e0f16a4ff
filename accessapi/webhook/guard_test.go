package webhook_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/webhook"
)

func TestBlocked_InternalDestinationsAreRefusedPublicOnesAllowed(t *testing.T) {
	for _, tt := range []struct {
		addr    string
		blocked bool
	}{
		{"127.0.0.1", true}, {"10.1.2.3", true}, {"172.16.0.1", true}, {"192.168.1.1", true},
		{"169.254.169.254", true}, // cloud metadata
		{"100.64.0.1", true},      // CGNAT
		{"0.0.0.0", true}, {"224.0.0.1", true}, {"255.255.255.255", true},
		{"::1", true}, {"fe80::1", true}, {"fd00:ec2::254", true}, {"::", true},
		{"::ffff:127.0.0.1", true},   // IPv4-mapped loopback
		{"64:ff9b::a9fe:a9fe", true}, // NAT64 of the metadata service
		{"2002:7f00:1::", true},      // 6to4 of loopback
		{"::127.0.0.1", true},        // IPv4-compatible (::/96) loopback
		{"::10.0.0.1", true},         // IPv4-compatible private
		{"::8.8.8.8", true},          // IPv4-compatible: the whole deprecated range
		{"::ffff:0:127.0.0.1", true}, // IPv4-translated (::ffff:0:0:0/96) loopback
		{"::ffff:0:192.168.0.1", true},
		{"::ffff:0:8.8.8.8", true},     // IPv4-translated: the whole range
		{"64:ff9b::7f00:1", true},      // NAT64 of loopback
		{"64:ff9b::a00:1", true},       // NAT64 of a private address
		{"64:ff9b::808:808", true},     // NAT64: the whole well-known prefix
		{"64:ff9b:1::a00:1", true},     // local-use NAT64 of a private address
		{"64:ff9b:1:ffff::1", true},    // local-use NAT64: the whole /48
		{"168.63.129.16", true},        // Azure platform (WireServer)
		{"::ffff:168.63.129.16", true}, // its IPv4-mapped form
		{"168.63.129.17", false},
		{"8.8.8.8", false}, {"1.1.1.1", false}, {"2606:4700:4700::1111", false}, {"::ffff:8.8.8.8", false},
	} {
		if got := webhook.Blocked(netip.MustParseAddr(tt.addr)); got != tt.blocked {
			t.Errorf("Blocked(%s) = %v, want %v", tt.addr, got, tt.blocked)
		}
	}
}

func TestBackoff_WaitsDoubleWithJitterUntilTheWindowEnds(t *testing.T) {
	b := access.WebhookBackoff{Base: time.Second, Max: time.Minute, Window: 10 * time.Minute}
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		elapsed, want time.Duration
	}{
		{0, time.Second}, {time.Second, time.Second}, {2 * time.Second, 2 * time.Second}, {8 * time.Second, 8 * time.Second},
		{5 * time.Minute, time.Minute}, // at most Max
	} {
		now := from.Add(tt.elapsed)
		for range 50 {
			next, ok := b.Next(from, now)
			if wait := next.Sub(now); !ok || wait < tt.want*8/10 || wait > tt.want*12/10 {
				t.Fatalf("after %s: wait %s (ok %v), want %s ±20%%", tt.elapsed, wait, ok, tt.want)
			}
		}
	}
	if _, ok := b.Next(from, from.Add(10*time.Minute)); ok {
		t.Fatal("a retry past the window was scheduled")
	}
}
