package netguard_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/cairn-app/cairn/backend/netguard"
)

func TestPublic(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"93.184.215.14", true},
		{"8.8.8.8", true},
		{"2606:4700:4700::1111", true},
		{"127.0.0.1", false},
		{"127.255.0.9", false},
		{"::1", false},
		{"::ffff:127.0.0.1", false}, // IPv4-mapped loopback
		{"::ffff:10.0.0.1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // cloud metadata
		{"fe80::1", false},
		{"fc00::1", false},
		{"fd12:3456::1", false},
		{"0.0.0.0", false},
		{"::", false},
		{"0.1.2.3", false},
		{"100.64.0.1", false},
		{"198.18.0.1", false},
		{"192.0.2.1", false},
		{"224.0.0.1", false},
		{"ff02::1", false},
		{"255.255.255.255", false},
		{"64:ff9b::a00:1", false}, // NAT64 of 10.0.0.1
		{"2002:a00:1::1", false},  // 6to4 of 10.0.0.1
		{"2001:db8::1", false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			if got := netguard.Public(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Fatalf("Public(%s) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
}

// fakeResolver answers every name from a table; nothing leaves the process.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	names, ok := f[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, n := range names {
		out = append(out, netip.MustParseAddr(n))
	}
	return out, nil
}

func TestDialerRefusesWhatIsNotPublic(t *testing.T) {
	resolver := fakeResolver{
		"public.example":  {"93.184.215.14"},
		"rebind.example":  {"127.0.0.1"},
		"mixed.example":   {"93.184.215.14", "10.0.0.5"},
		"metadata.google": {"169.254.169.254"},
	}
	tests := []struct {
		address string
		dialled string // "" = refused before any dial
	}{
		{"public.example:443", "93.184.215.14:443"},
		{"93.184.215.14:80", "93.184.215.14:80"},
		{"rebind.example:80", ""},
		{"mixed.example:80", ""},
		{"metadata.google:80", ""},
		{"127.0.0.1:8080", ""},
		{"[::1]:8080", ""},
		{"[::ffff:127.0.0.1]:80", ""},
		{"[fe80::1%eth0]:80", ""},
		{"localhost:80", ""}, // not in the resolver: but never dialled either way
	}
	for _, tt := range tests {
		t.Run(tt.address, func(t *testing.T) {
			var dialled []string
			d := &netguard.Dialer{
				Resolver: resolver,
				Dial: func(_ context.Context, _, address string) (net.Conn, error) {
					dialled = append(dialled, address)
					c, s := net.Pipe()
					s.Close()
					return c, nil
				},
			}
			c, err := d.DialContext(context.Background(), "tcp", tt.address)
			if tt.dialled == "" {
				if err == nil {
					c.Close()
					t.Fatalf("dialled %v", dialled)
				}
				if len(dialled) != 0 {
					t.Fatalf("dialled %v before refusing", dialled)
				}
				if tt.address != "localhost:80" && !netguard.IsBlocked(err) {
					t.Fatalf("err %v is not the guard's refusal", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			c.Close()
			if len(dialled) != 1 || dialled[0] != tt.dialled {
				t.Fatalf("dialled %v, want %s (the checked address, not the name)", dialled, tt.dialled)
			}
		})
	}
}

func TestNumericHost(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"2130706433", true},   // 127.0.0.1 as one decimal number
		{"0177.0.0.1", true},   // octal
		{"0x7f.0.0.1", true},   // hex part
		{"0x7f000001", true},   // hex number
		{"127.1", true},        // shorthand
		{"017700000001", true}, // octal number
		{"3232235777.", true},  // 192.168.1.1, final dot
		{"127.0.0.1", false},   // canonical: checked as the address it is
		{"93.184.215.14", false},
		{"example.com", false},
		{"1.example", false},
		{"example.123abc", false},
		{"::1", false},
		{"::ffff:1.2.3.4", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := netguard.NumericHost(tt.host); got != tt.want {
			t.Errorf("NumericHost(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestDialerRefusesNumericFormsAndHonoursAllowedHosts(t *testing.T) {
	resolver := fakeResolver{"nas.home": {"192.168.1.20"}, "other.home": {"192.168.1.21"}}
	var dialled []string
	d := &netguard.Dialer{
		Resolver:   resolver,
		AllowHosts: []string{"NAS.home.", "10.0.0.9"},
		Dial: func(_ context.Context, _, address string) (net.Conn, error) {
			dialled = append(dialled, address)
			c, s := net.Pipe()
			s.Close()
			return c, nil
		},
	}
	for _, addr := range []string{"2130706433:80", "0177.0.0.1:80", "127.1:80", "other.home:80", "10.0.0.8:80"} {
		if _, err := d.DialContext(context.Background(), "tcp", addr); !netguard.IsBlocked(err) {
			t.Errorf("%s: err %v, want the guard's refusal", addr, err)
		}
	}
	if len(dialled) != 0 {
		t.Fatalf("dialled %v", dialled)
	}
	for _, addr := range []string{"nas.home:80", "10.0.0.9:80"} {
		c, err := d.DialContext(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatalf("%s refused though allowed: %v", addr, err)
		}
		c.Close()
	}
	if len(dialled) != 2 || dialled[0] != "192.168.1.20:80" || dialled[1] != "10.0.0.9:80" {
		t.Fatalf("dialled %v", dialled)
	}
}

func TestCheckName(t *testing.T) {
	tests := []struct {
		host    string
		allowed []string
		blocked bool
	}{
		{"example.com", nil, false},
		{"fake-ip.example", nil, false}, // the proxy resolves it; its address is not ours to see
		{"93.184.215.14", nil, false},
		{"127.0.0.1", nil, true},
		{"[::1]", nil, true},
		{"169.254.169.254", nil, true},
		{"2130706433", nil, true},
		{"localhost", nil, true},
		{"api.localhost", nil, true},
		{"printer.local", nil, true},
		{"metadata.google.internal", nil, true},
		{"router.home.arpa", nil, true},
		{"printer.local", []string{"printer.local"}, false},
		{"192.168.1.1", []string{"192.168.1.1"}, false},
	}
	for _, tt := range tests {
		err := netguard.CheckName(tt.host, tt.allowed)
		if got := netguard.IsBlocked(err); got != tt.blocked {
			t.Errorf("CheckName(%q, %v) = %v, want blocked=%v", tt.host, tt.allowed, err, tt.blocked)
		}
	}
}

// BenchmarkGuard is the guard's own cost per request: resolving (from a table here) and
// checking every address, without the connection itself.
func BenchmarkGuard(b *testing.B) {
	d := &netguard.Dialer{
		Resolver: fakeResolver{"public.example": {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"}},
		Dial: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("not dialled")
		},
	}
	for b.Loop() {
		if _, err := d.DialContext(context.Background(), "tcp", "public.example:443"); netguard.IsBlocked(err) {
			b.Fatal(err)
		}
	}
}
