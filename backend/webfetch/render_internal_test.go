package webfetch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/netguard"
)

type tableResolver map[string]string

func (r tableResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, errors.New("no such host")
}

// TestRenderProxyGuardsTunnelsAndRequests drives the render's proxy as Chromium does:
// CONNECT for https, absolute URLs for http. A public name's tunnel opens (to a loopback
// stand-in); loopback and private targets are refused before any dial.
func TestRenderProxyGuardsTunnelsAndRequests(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("pong"))
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	d := &netguard.Dialer{
		Resolver: tableResolver{"tunnel.example": "93.184.215.14", "private.example": "10.1.2.3"},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			if address != net.JoinHostPort("93.184.215.14", port) {
				t.Errorf("dialled %s", address)
				return nil, errors.New("refused by the test")
			}
			var nd net.Dialer
			return nd.DialContext(ctx, network, ln.Addr().String())
		},
	}
	f := New(Options{Dialer: d, NoBrowser: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gp, err := f.startProxy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer gp.close()

	status, rest := ask(t, gp.addr, fmt.Sprintf("CONNECT tunnel.example:%s HTTP/1.1\r\nHost: tunnel.example:%s\r\n\r\n", port, port))
	if status != http.StatusOK || rest != "pong" {
		t.Fatalf("public tunnel: %d %q", status, rest)
	}
	for _, req := range []string{
		"CONNECT 127.0.0.1:" + port + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n",
		"CONNECT private.example:443 HTTP/1.1\r\nHost: private.example:443\r\n\r\n",
		"CONNECT 2130706433:443 HTTP/1.1\r\nHost: 2130706433:443\r\n\r\n",
		"GET http://127.0.0.1:" + port + "/ HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n",
		"GET http://private.example/ HTTP/1.1\r\nHost: private.example\r\n\r\n",
		"GET /relative HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		if status, body := ask(t, gp.addr, req); status == http.StatusOK || (status == http.StatusBadGateway && !strings.Contains(body, "public") && !strings.Contains(body, "numeric")) {
			t.Errorf("%q: %d %q", strings.SplitN(req, "\r", 2)[0], status, body)
		}
	}
}

func ask(t *testing.T, proxy, req string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK && strings.HasPrefix(req, "CONNECT") {
		b, _ := io.ReadAll(br)
		return resp.StatusCode, string(b)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRenderProxyChainsToTheUserProxy: behind the user's proxy, the render's tunnels go
// through it after the name check, and local names never reach it.
func TestRenderProxyChainsToTheUserProxy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	asked := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				asked <- req.Method + " " + req.Host
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n\r\n")
				_, _ = io.WriteString(c, "pong")
			}()
		}
	}()
	up, _ := url.Parse("http://" + ln.Addr().String())
	d := &netguard.Dialer{Dial: func(context.Context, string, string) (net.Conn, error) {
		t.Errorf("the guard dialled: behind a proxy only the proxy is dialled")
		return nil, errors.New("refused by the test")
	}}
	f := New(Options{Dialer: d, NoBrowser: true, Proxy: up})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gp, err := f.startProxy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer gp.close()
	if status, rest := ask(t, gp.addr, "CONNECT fakeip.example:443 HTTP/1.1\r\nHost: fakeip.example:443\r\n\r\n"); status != http.StatusOK || rest != "pong" {
		t.Fatalf("tunnel through the proxy: %d %q", status, rest)
	}
	if got := <-asked; got != "CONNECT fakeip.example:443" {
		t.Fatalf("the proxy was asked %q", got)
	}
	if status, _ := ask(t, gp.addr, "CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n"); status != http.StatusBadGateway {
		t.Fatalf("localhost: %d", status)
	}
	select {
	case got := <-asked:
		t.Fatalf("the proxy was asked %q", got)
	default:
	}
}
