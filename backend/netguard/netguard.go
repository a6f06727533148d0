// Package netguard is the address guard for outgoing requests whose address someone else
// chose (a model's answer, a tool result, a web page): it connects only to addresses on the
// public internet. The check is made on the address actually dialled, after resolution, so
// a name that resolves to a public address when checked and to a private one when used
// (DNS rebinding) gains nothing, and so does a redirect to a private address.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// Resolver is the part of net.Resolver the guard uses; tests pass their own.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DialFunc connects to an address already checked ("ip:port").
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// Dialer resolves, checks every address with Public, and dials the first one. The zero
// value uses the system resolver and a plain net.Dialer. Tests pass a Resolver that names
// public addresses and a Dial that connects them to a loopback test server (and fails the
// test for anything else): what is refused stays refused.
type Dialer struct {
	Resolver Resolver
	Dial     DialFunc
}

// BlockedError is the refusal of an address that is not public.
type BlockedError struct {
	Host string
	Addr netip.Addr
}

func (e *BlockedError) Error() string {
	if e.Addr.IsValid() && e.Host != e.Addr.String() {
		return fmt.Sprintf("%s resolves to %s, which is not a public internet address", e.Host, e.Addr)
	}
	return fmt.Sprintf("%s is not a public internet address", e.Host)
}

// IsBlocked reports whether err (or an error it wraps) is the guard's refusal.
func IsBlocked(err error) bool {
	var b *BlockedError
	return errors.As(err, &b)
}

// DialContext is for http.Transport.DialContext.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	addrs, err := d.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	// Every address must pass, not only the first: which one a retry would use is not ours
	// to choose.
	for _, a := range addrs {
		if !Public(a) {
			return nil, &BlockedError{Host: host, Addr: a}
		}
	}
	dial := d.Dial
	if dial == nil {
		var nd net.Dialer
		dial = nd.DialContext
	}
	var lastErr error
	for _, a := range addrs {
		c, err := dial(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// resolve returns host's addresses: itself when it is one (zone dropped), else the
// resolver's answer.
func (d *Dialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.WithZone("")}, nil
	}
	r := d.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolve %s: no address", host)
	}
	return addrs, nil
}

// nonPublic are the ranges net/netip has no predicate for that do not reach the public
// internet, or reach a private address by a detour (NAT64, 6to4).
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the broadcast address
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64: any IPv4 address, private ones too
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local NAT64
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4: embeds any IPv4 address
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

// Public reports whether a is an address on the public internet: not loopback, private,
// link-local (cloud metadata at 169.254.169.254 among them), multicast, unspecified or
// reserved, in IPv4, IPv6 or IPv4-mapped IPv6.
func Public(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if !a.IsValid() || a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() ||
		a.IsMulticast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}
