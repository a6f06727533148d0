package confine

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/netguard"
)

// fakeResolver maps the test's names to addresses.
type fakeResolver map[string]string

func (f fakeResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, errors.New("no such host " + host)
}

// TestNetworkAllowList: with domains allowed, the proxy carries requests to them (and
// their subdomains) and nowhere else: not to other names, not to a name that resolves
// to a private address, not around it to the host's loopback; and it says what it
// reached. The reduced level refuses a domain list.
func TestNetworkAllowList(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("hello-from-" + r.Host))
	}))
	defer srv.Close()
	const public = "93.184.216.34"
	dialer := &netguard.Dialer{
		Resolver: fakeResolver{"allowed.test": public, "api.allowed.test": public, "private.allowed.test": "10.1.2.3", "other.test": public},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if h, _, _ := net.SplitHostPort(addr); h != public {
				t.Errorf("the proxy dialled %s", addr)
				return nil, errors.New("test dialer: not the fake public address")
			}
			var d net.Dialer
			return d.DialContext(ctx, "tcp", srv.Listener.Addr().String())
		},
	}
	exe, _ := os.Executable()
	lvs := levels(t)
	for _, lv := range lvs {
		t.Run(string(lv), func(t *testing.T) {
			s, err := New(t.TempDir(), Options{Exe: exe, Force: lv, ProxyDialer: dialer})
			if err != nil {
				t.Fatal(err)
			}
			pol := Policy{Workspace: t.TempDir(), Network: []string{"allowed.test"}, Env: map[string]string{"DIRECT": srv.Listener.Addr().String()}}
			if lv != Strong {
				if _, err := s.Start(context.Background(), pol, []string{"true"}, nil); err == nil || !strings.Contains(err.Error(), "strong") {
					t.Fatalf("the %s level took a domain list: %v", lv, err)
				}
				return
			}
			ctx := context.Background()
			p, err := s.Start(ctx, pol, []string{"/bin/sh", "-c", `
curl -s http://allowed.test/; echo
curl -s -p http://api.allowed.test/; echo
curl -s -o /dev/null -w "other %{http_code}\n" http://other.test/
curl -s -o /dev/null -w "private %{http_code}\n" http://private.allowed.test/
curl -s --noproxy '*' -m 2 "http://$DIRECT/" || echo "direct refused"
python3 -c 'import socket; socket.getaddrinfo("allowed.test", 80)' 2>/dev/null || echo "no dns"
`}, nil)
			if err != nil {
				t.Fatal(err)
			}
			out := readAll(t, p)
			if _, err := p.Wait(); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"hello-from-allowed.test", "hello-from-api.allowed.test", "other 403", "private 502", "direct refused", "no dns"} {
				if !strings.Contains(out, want) {
					t.Fatalf("want %q in:\n%s", want, out)
				}
			}
			if got := p.Reached(); !slices.Contains(got, "allowed.test") && !slices.Contains(got, "allowed.test:80") || !slices.Contains(got, "api.allowed.test:80") {
				t.Fatalf("reached %v", got)
			}
		})
	}
}

func readAll(t *testing.T, p *Process) string {
	t.Helper()
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := p.Stderr.Read(b)
			if n > 0 {
				t.Logf("stderr: %s", b[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	var sb strings.Builder
	b := make([]byte, 4096)
	for {
		n, err := p.Stdout.Read(b)
		sb.Write(b[:n])
		if err != nil {
			return sb.String()
		}
	}
}
