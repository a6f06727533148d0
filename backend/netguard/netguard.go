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
	"strings"
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
	// AllowHosts are names (or address literals) the user allowed to be private: a name
	// listed here may resolve to any address. Matched whole, without case or a final dot.
	AllowHosts []string
}

// BlockedError is the refusal of an address that is not public.
type BlockedError struct {
	Host string
	Addr netip.Addr
	// Reason replaces the usual explanation when set.
	Reason string
}

func (e *BlockedError) Error() string {
	if e.Reason != "" {
		return e.Host + " " + e.Reason
	}
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
	if NumericHost(host) {
		return nil, numericBlocked(host)
	}
	addrs, err := d.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	if !HostAllowed(d.AllowHosts, host) {
		// Every address must pass, not only the first: which one a retry would use is not
		// ours to choose.
		for _, a := range addrs {
			if !Public(a) {
				return nil, &BlockedError{Host: host, Addr: a}
			}
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

// NumericHost reports whether host is an IPv4 address written in a form other than four
// decimal parts ("2130706433", "0177.0.0.1", "0x7f.1", "127.1"). Resolvers and browsers
// read these as addresses, each its own way, so they are refused before any lookup rather
// than guessed at.
func NumericHost(host string) bool {
	host = strings.TrimSuffix(host, ".")
	if host == "" || strings.Contains(host, ":") {
		return false
	}
	labels := strings.Split(host, ".")
	if !numericLabel(labels[len(labels)-1]) {
		return false
	}
	// A name whose last label is a number is an address by the URL standard's rule; only
	// the canonical dotted quad is accepted as one.
	a, err := netip.ParseAddr(host)
	return err != nil || !a.Is4()
}

func numericLabel(l string) bool {
	if l == "" {
		return false
	}
	if len(l) > 1 && (l[0:2] == "0x" || l[0:2] == "0X") {
		l = l[2:]
		for _, r := range l {
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
		return true
	}
	for _, r := range l {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// HostAllowed reports whether host is one of the allowed names, compared without case and
// a final dot.
func HostAllowed(allowed []string, host string) bool {
	h := normalName(host)
	for _, a := range allowed {
		if a != "" && normalName(a) == h {
			return true
		}
	}
	return false
}

func normalName(h string) string {
	h = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
}

// localSuffixes are names that never leave the local network, whatever a resolver says.
var localSuffixes = []string{".localhost", ".local", ".internal", ".home.arpa", ".lan"}

// CheckName is the guard for a request a proxy resolves (the proxy may answer names with
// made-up addresses, as fake-IP proxies do, so the dialled address says nothing): it
// refuses an address literal that is not public, a numeric form, and names that are local
// by definition (localhost, *.local, *.internal, …), unless allowed.
func CheckName(host string, allowed []string) error {
	if HostAllowed(allowed, host) {
		return nil
	}
	if NumericHost(host) {
		return numericBlocked(host)
	}
	h := normalName(host)
	if a, err := netip.ParseAddr(h); err == nil {
		if !Public(a) {
			return &BlockedError{Host: host, Addr: a.WithZone("")}
		}
		return nil
	}
	if h == "localhost" || hasLocalSuffix(h) {
		return &BlockedError{Host: host, Reason: "is a local network name"}
	}
	return nil
}

func hasLocalSuffix(h string) bool {
	for _, s := range localSuffixes {
		if strings.HasSuffix(h, s) {
			return true
		}
	}
	return false
}

func numericBlocked(host string) error {
	return &BlockedError{Host: host, Reason: "is an IPv4 address in a numeric form other than a.b.c.d, which is refused"}
}
