package webfetch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/cairn-app/cairn/backend/netguard"
)

// findBrowser is the Chromium to render with: path when given (looked up on PATH if it
// is a bare name), else the first of the usual names on PATH; "" when there is none.
func findBrowser(path string) string {
	names := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}
	if path != "" {
		names = []string{path}
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// HasBrowser says whether client-rendered pages can be rendered.
func (f *Fetcher) HasBrowser() bool { return f.browser != "" }

// render loads u in a headless Chromium and returns the DOM once the page has text (or
// waiting stopped helping). Every request the page makes goes through a proxy on
// loopback that only this fetch uses, which sends it on through the fetcher's guarded
// transport, so the guard sees each address a page's scripts ask for; Chromium resolves
// no name itself.
func (f *Fetcher) render(ctx context.Context, u *url.URL) (string, error) {
	gp, err := f.startProxy(ctx)
	if err != nil {
		return "", err
	}
	defer gp.close()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(f.browser),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.ProxyServer("http://" + gp.addr),
		// Loopback would otherwise bypass the proxy implicitly.
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("disable-quic", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx, denyDownloads(), chromedp.Navigate(u.String()), waitForText(5*time.Second)); err != nil {
		return "", fmt.Errorf("render %s: %w", u.Redacted(), err)
	}
	dom, err := chromedp.Run(bctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		return "", fmt.Errorf("render %s: %w", u.Redacted(), err)
	}
	return dom, nil
}

// denyDownloads keeps a page from saving files on the user's disk.
func denyDownloads() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorDeny})
		return err
	})
}

// waitForText polls the page until its body has readable text or max has passed.
func waitForText(max time.Duration) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		deadline := time.Now().Add(max)
		for {
			n, err := chromedp.Evaluate[int](`document.body ? document.body.innerText.trim().length : 0`)(ctx, t)
			if err != nil {
				return err
			}
			if n >= minReadable || time.Now().After(deadline) {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	})
}

// guardProxy is the render's forward proxy: plain http requests go through the fetcher's
// transport (guarded dial, or the user's proxy after the name check), CONNECT tunnels
// through the guarded dialer.
type guardProxy struct {
	f    *Fetcher
	ctx  context.Context
	ln   net.Listener
	srv  *http.Server
	addr string
}

func (f *Fetcher) startProxy(ctx context.Context) (*guardProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("render proxy: %w", err)
	}
	gp := &guardProxy{f: f, ctx: ctx, ln: ln, addr: ln.Addr().String()}
	gp.srv = &http.Server{Handler: gp, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = gp.srv.Serve(ln) }()
	return gp, nil
}

func (gp *guardProxy) close() { _ = gp.srv.Close() }

func (gp *guardProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		gp.tunnel(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "only proxy requests", http.StatusBadRequest)
		return
	}
	out := r.Clone(gp.ctx)
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	resp, err := gp.f.transport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, io.LimitReader(resp.Body, gp.f.opt.MaxBytes))
}

// tunnel answers CONNECT: the target is dialled through the guard (or reached through
// the user's proxy once its name passed), then bytes flow both ways; TLS stays end to end.
func (gp *guardProxy) tunnel(w http.ResponseWriter, r *http.Request) {
	target, err := gp.dialTarget(r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		target.Close()
		http.Error(w, "cannot tunnel", http.StatusInternalServerError)
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		target.Close()
		return
	}
	_, _ = client.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n"))
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(target, buf); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, target); done <- struct{}{} }()
	select {
	case <-done:
	case <-gp.ctx.Done():
	}
	client.Close()
	target.Close()
}

func (gp *guardProxy) dialTarget(hostport string) (net.Conn, error) {
	f := gp.f
	if f.opt.Proxy == nil {
		return f.dialer.DialContext(gp.ctx, "tcp", hostport)
	}
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	if err := netguard.CheckName(host, f.dialer.AllowHosts); err != nil {
		return nil, err
	}
	if f.opt.Proxy.Scheme != "http" {
		return nil, fmt.Errorf("rendering through a %s proxy is not supported", f.opt.Proxy.Scheme)
	}
	return connectVia(gp.ctx, proxyAddress(f.opt.Proxy), hostport)
}

// connectVia opens a tunnel to hostport through the http proxy at proxy.
func connectVia(ctx context.Context, proxy, hostport string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", proxy)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hostport, hostport)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		c.Close()
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.Close()
		return nil, errors.New("proxy refused the tunnel: " + strings.TrimSpace(resp.Status))
	}
	if br.Buffered() > 0 {
		return bufferedConn{c, br}, nil
	}
	return c, nil
}

// bufferedConn is a tunnel whose first bytes came with the proxy's answer.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
