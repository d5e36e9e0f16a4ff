package webhook

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// blockedPrefixes are the destinations refused unless private networks are
// allowed: this host, private and shared (CGNAT) networks, link-local
// addresses (with the cloud metadata services at 169.254.169.254 and
// fd00:ec2::254), Azure's platform address 168.63.129.16, and the ranges
// that embed or translate IPv4 addresses.
//
// The IPv6 ranges that embed an IPv4 address (IPv4-compatible ::/96,
// IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48,
// 6to4, Teredo) are blocked outright rather than judged by the IPv4 address
// inside: the first two are deprecated and never a public destination;
// where a NAT64 translator puts the IPv4 address in a local-use prefix is
// the operator's choice (RFC 6052 allows several prefix lengths), and a
// translator may reach networks this guard cannot see, so the embedded
// address cannot be trusted to be the one finally dialled. The cost: a
// host whose only way to IPv4 is DNS64/NAT64 reaches no IPv4-only
// receiver unless allow_private_networks is set. Only the IPv4-mapped
// form ::ffff:a.b.c.d, which the host dials as IPv4 itself, is judged by
// its IPv4 address (see Blocked).
var blockedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",        // "this network"
		"10.0.0.0/8",       // private
		"100.64.0.0/10",    // shared address space (CGNAT)
		"127.0.0.0/8",      // loopback
		"168.63.129.16/32", // Azure platform (WireServer: VM agent, DNS, health probes)
		"169.254.0.0/16",   // link-local, cloud metadata
		"172.16.0.0/12",    // private
		"192.0.0.0/24",     // IETF protocol assignments
		"192.0.2.0/24",     // documentation
		"192.88.99.0/24",   // 6to4 relay anycast
		"192.168.0.0/16",   // private
		"198.18.0.0/15",    // benchmarking
		"198.51.100.0/24",  // documentation
		"203.0.113.0/24",   // documentation
		"224.0.0.0/4",      // multicast
		"240.0.0.0/4",      // reserved, broadcast
		"::/96",            // unspecified (::), loopback (::1), IPv4-compatible (deprecated, RFC 4291)
		"::ffff:0:0:0/96",  // IPv4-translated (SIIT, RFC 2765)
		"64:ff9b::/96",     // NAT64 of any IPv4 address (RFC 6052)
		"64:ff9b:1::/48",   // local-use NAT64 (RFC 8215)
		"100::/64",         // discard
		"2001::/32",        // Teredo
		"2001:db8::/32",    // documentation
		"2002::/16",        // 6to4
		"fc00::/7",         // unique local (fd00:ec2::254 is a metadata service)
		"fe80::/10",        // link-local
		"fec0::/10",        // site-local (deprecated)
		"ff00::/8",         // multicast
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Blocked reports whether the guard refuses a destination address.
func Blocked(addr netip.Addr) bool {
	addr = addr.WithZone("")
	for _, p := range blockedPrefixes {
		if p.Contains(addr) {
			return true
		}
	}
	if addr.Is4In6() { // ::ffff:a.b.c.d is checked as a.b.c.d
		return Blocked(addr.Unmap())
	}
	return false
}

// guardControl is a net.Dialer Control function that refuses blocked
// destinations. It runs on the address actually dialled, after name
// resolution and for every redirect, so a name that resolves (or is
// re-resolved) to an internal address is refused too.
func guardControl(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook destination %q: %w", address, err)
	}
	if Blocked(ap.Addr()) {
		return fmt.Errorf("webhook destination %s is a private, loopback, link-local or reserved address (allow_private_networks permits it)", ap.Addr())
	}
	return nil
}

// newDialer returns the dialer of webhook requests.
func newDialer(allowPrivate bool) *net.Dialer {
	d := &net.Dialer{}
	if !allowPrivate {
		d.Control = guardControl
	}
	return d
}
