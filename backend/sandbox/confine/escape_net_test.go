package confine

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// netProbe is a Python script that tries one way out and prints DENIED or REACHED.
const netProbe = `
import socket, sys
kind, host, port = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    if kind == "tcp":
        s = socket.create_connection((host, int(port)), timeout=2); s.sendall(b"x")
    elif kind == "udp":
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_DGRAM); s.sendto(b"x", (host, int(port)))
    elif kind == "dns":
        q = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01"
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2); s.sendto(q, (host, int(port))); s.recv(512)
    elif kind == "abstract":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect("\0" + host)
    print("REACHED")
except OSError as e:
    print("DENIED", e.errno, e)
    sys.exit(3)
`

// servers are the loopback servers a test starts and counts what reached them.
type servers struct {
	tcp4, tcp6, udp, dns string
	abstract             string
	hits                 atomic.Int64
}

func startServers(t *testing.T) *servers {
	t.Helper()
	s := &servers{}
	for _, n := range []struct {
		network, addr string
		dst           *string
	}{{"tcp4", "127.0.0.1:0", &s.tcp4}, {"tcp6", "[::1]:0", &s.tcp6}} {
		l, err := net.Listen(n.network, n.addr)
		if err != nil {
			t.Fatalf("listen %s: %v", n.addr, err)
		}
		t.Cleanup(func() { l.Close() })
		*n.dst = l.Addr().String()
		go accept(l, &s.hits)
	}
	for _, dst := range []*string{&s.udp, &s.dns} {
		pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pc.Close() })
		*dst = pc.LocalAddr().String()
		go answerPackets(pc, &s.hits) // the DNS one answers every query with its own header
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	s.abstract = "cairn-sbx-test-" + hex.EncodeToString(b[:])
	l, err := net.Listen("unix", "@"+s.abstract)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go accept(l, &s.hits)
	return s
}

func accept(l net.Listener, hits *atomic.Int64) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		hits.Add(1)
		c.Close()
	}
}

func answerPackets(pc net.PacketConn, hits *atomic.Int64) {
	buf := make([]byte, 512)
	for {
		n, addr, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		hits.Add(1)
		if n >= 12 {
			buf[2] |= 0x80 // a response
			_, _ = pc.WriteTo(buf[:n], addr)
		}
	}
}

func hostPort(t *testing.T, addr string) (string, string) {
	t.Helper()
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return h, p
}

// TestEscapeNetwork: with the network off nothing reaches the test's own loopback
// servers: TCP over IPv4 and IPv6, UDP, DNS, an abstract Unix socket.
func TestEscapeNetwork(t *testing.T) {
	srv := startServers(t)
	// The probe itself works: run unconfined, it reaches the servers.
	unconfined := newSandbox(t, None)
	unconfined.opts.AllowUnconfined = true
	for _, lv := range append(levels(t), None) {
		t.Run(string(lv), func(t *testing.T) {
			s := newSandbox(t, lv)
			if lv == None {
				s = unconfined
			}
			e := Policy{Workspace: t.TempDir()}
			cases := map[string][3]string{}
			h, p := hostPort(t, srv.tcp4)
			cases["tcp4"] = [3]string{"tcp", h, p}
			h, p = hostPort(t, srv.tcp6)
			cases["tcp6"] = [3]string{"tcp", h, p}
			h, p = hostPort(t, srv.udp)
			cases["udp"] = [3]string{"udp", h, p}
			h, p = hostPort(t, srv.dns)
			cases["dns"] = [3]string{"dns", h, p}
			cases["abstract unix"] = [3]string{"abstract", srv.abstract, "0"}
			for name, c := range cases {
				t.Run(name, func(t *testing.T) {
					before := srv.hits.Load()
					r := run(t, s, e, "python3 -c '"+strings.ReplaceAll(netProbe, "'", `'"'"'`)+"' "+c[0]+" "+c[1]+" "+c[2])
					time.Sleep(50 * time.Millisecond) // a datagram in flight
					got := srv.hits.Load() - before
					if lv == None {
						if r.code != 0 || got == 0 {
							t.Fatalf("the probe does not work unconfined: %+v, %d hits", r, got)
						}
						return
					}
					if got != 0 || !strings.Contains(r.stdout, "DENIED") {
						t.Fatalf("%s reached the host: %+v, %d hits", name, r, got)
					}
				})
			}
		})
	}
}
