package confine

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/netguard"
)

// proxy is the way out of a sandbox whose policy allows some domains: an HTTP proxy on
// a Unix socket mounted into the sandbox (whose own network namespace has nothing else).
// It takes CONNECT and plain HTTP requests for the allowed domains (a name or any name
// under it), resolves them itself and dials only public addresses (netguard), and
// records every host reached.
type proxy struct {
	ln      net.Listener
	allowed []string
	dialer  *netguard.Dialer

	mu      sync.Mutex
	reached []string
	wg      sync.WaitGroup
}

func newProxy(sockPath string, allowed []string, d *netguard.Dialer) (*proxy, error) {
	ln, err := net.Listen("unix", sockPath)
	if err != nil {
		return nil, err
	}
	if d == nil {
		d = &netguard.Dialer{}
	}
	p := &proxy{ln: ln, allowed: allowed, dialer: d}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// allowedHost reports whether host is an allowed domain or under one.
func (p *proxy) allowedHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	for _, a := range p.allowed {
		a = strings.TrimPrefix(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(a)), "."), "*.")
		if a != "" && (h == a || strings.HasSuffix(h, "."+a)) {
			return true
		}
	}
	return false
}

func (p *proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.handle(c) }()
	}
}

// close stops the proxy and the connections it carries.
func (p *proxy) close() []string {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.reached...)
}

func (p *proxy) note(host string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.reached {
		if h == host {
			return
		}
	}
	p.reached = append(p.reached, host)
}

func (p *proxy) handle(c net.Conn) {
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	host := req.URL.Hostname()
	if req.Method == http.MethodConnect {
		host = req.Host
		if h, _, err := net.SplitHostPort(req.Host); err == nil {
			host = h
		}
	}
	if !p.allowedHost(host) {
		refuse(c, http.StatusForbidden, host+" is not among the domains this sandbox may reach")
		return
	}
	if err := netguard.CheckName(host, nil); err != nil {
		refuse(c, http.StatusForbidden, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if req.Method == http.MethodConnect {
		p.connect(ctx, c, br, req)
		return
	}
	p.forward(ctx, c, req, host)
}

func refuse(c net.Conn, code int, msg string) {
	resp := &http.Response{StatusCode: code, ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{"Content-Type": {"text/plain"}},
		Body: io.NopCloser(strings.NewReader(msg + "\n")), ContentLength: int64(len(msg) + 1)}
	_ = resp.Write(c)
}

// connect tunnels to the allowed host's port.
func (p *proxy) connect(ctx context.Context, c net.Conn, br *bufio.Reader, req *http.Request) {
	up, err := p.dialer.DialContext(ctx, "tcp", req.Host)
	if err != nil {
		refuse(c, http.StatusBadGateway, err.Error())
		return
	}
	defer up.Close()
	p.note(req.Host)
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, br); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
	<-done
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// forward sends one plain HTTP request on and its answer back.
func (p *proxy) forward(ctx context.Context, c net.Conn, req *http.Request, host string) {
	tr := &http.Transport{DialContext: p.dialer.DialContext, Proxy: nil, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	out := req.Clone(ctx)
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	resp, err := tr.RoundTrip(out)
	if err != nil {
		refuse(c, http.StatusBadGateway, err.Error())
		return
	}
	defer resp.Body.Close()
	p.note(req.URL.Host)
	resp.Close = true
	_ = resp.Write(c)
}
