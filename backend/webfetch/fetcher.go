// Package webfetch is Cairn's own page reader: it fetches an http(s) address a model chose,
// through the address guard (backend/netguard), and turns what it gets into readable
// Markdown: charset detected, the main text extracted, links, lists, tables and code kept,
// PDFs as text, client-rendered pages rendered in a headless Chromium when one is
// installed, long pages cut with a note of how much was dropped.
package webfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/netguard"
)

// Defaults for the zero values of Options.
const (
	DefaultMaxBytes      = 10 << 20
	DefaultTimeout       = 30 * time.Second
	DefaultRenderTimeout = 20 * time.Second
	DefaultMaxRedirects  = 5
	DefaultMaxChars      = 40_000
	maxURLLength         = 8 << 10
)

// Options configure New; zero values get the defaults.
type Options struct {
	// Dialer connects to the addresses it checked; nil is a netguard.Dialer with the system
	// resolver (public addresses only). Tests pass one whose Dial fails the test for
	// anything but loopback.
	Dialer *netguard.Dialer
	// AllowHosts are names (or addresses) the user allowed to be private.
	AllowHosts []string
	// Proxy, when set, carries every request: the guard then checks the requested name
	// (netguard.CheckName) and the proxy resolves it, so a fake-IP proxy's made-up
	// addresses are not refused. Only the proxy's own address is dialled unchecked.
	Proxy *url.URL
	// MaxBytes caps a response body; a larger one is refused (fetch_too_large).
	MaxBytes int64
	// Timeout bounds one fetch, redirects and reading included.
	Timeout time.Duration
	// MaxRedirects is how many redirects one fetch follows.
	MaxRedirects int
	// MaxChars is how much Markdown a page keeps; the rest is dropped with a note.
	MaxChars int
	// Browser is the Chromium to render client-side pages with; empty looks for one on
	// PATH. NoBrowser turns rendering off.
	Browser   string
	NoBrowser bool
	// RenderTimeout bounds one headless render.
	RenderTimeout time.Duration
}

// Fetcher reads pages; safe for concurrent use.
type Fetcher struct {
	opt       Options
	dialer    *netguard.Dialer
	transport *http.Transport
	client    *http.Client
	browser   string
}

// New returns a Fetcher. Proxies from the environment are used only when passed as
// Options.Proxy: the guard must know which address is the proxy's.
func New(o Options) *Fetcher {
	if o.Dialer == nil {
		o.Dialer = &netguard.Dialer{}
	}
	d := *o.Dialer
	d.AllowHosts = append(append([]string(nil), d.AllowHosts...), o.AllowHosts...)
	o.MaxBytes = positive(o.MaxBytes, DefaultMaxBytes)
	o.Timeout = positive(o.Timeout, DefaultTimeout)
	o.RenderTimeout = positive(o.RenderTimeout, DefaultRenderTimeout)
	o.MaxRedirects = positive(o.MaxRedirects, DefaultMaxRedirects)
	o.MaxChars = positive(o.MaxChars, DefaultMaxChars)
	f := &Fetcher{opt: o, dialer: &d}
	f.transport = &http.Transport{
		DialContext:            f.dial,
		Proxy:                  f.proxy,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  20 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	f.client = &http.Client{Transport: f.transport, CheckRedirect: f.checkRedirect}
	if !o.NoBrowser {
		f.browser = findBrowser(o.Browser)
	}
	return f
}

func positive[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// proxy is the transport's Proxy: with a proxy set, every request (each redirect hop
// too) is checked by name here, since the proxy, not Cairn, resolves it.
func (f *Fetcher) proxy(r *http.Request) (*url.URL, error) {
	if f.opt.Proxy == nil {
		return nil, nil
	}
	if err := netguard.CheckName(r.URL.Hostname(), f.dialer.AllowHosts); err != nil {
		return nil, err
	}
	return f.opt.Proxy, nil
}

// dial connects to the proxy as it is (it is the user's own, often on loopback) and to
// anything else through the guard.
func (f *Fetcher) dial(ctx context.Context, network, address string) (net.Conn, error) {
	if p := f.opt.Proxy; p != nil && address == proxyAddress(p) {
		var d net.Dialer
		return d.DialContext(ctx, network, address)
	}
	return f.dialer.DialContext(ctx, network, address)
}

func proxyAddress(p *url.URL) string {
	if p.Port() != "" {
		return p.Host
	}
	port := "80"
	switch p.Scheme {
	case "https":
		port = "443"
	case "socks5", "socks5h":
		port = "1080"
	}
	return net.JoinHostPort(p.Hostname(), port)
}

// checkRedirect limits redirects and re-checks each hop's address form before it is
// asked for; the dial (or the proxy check) checks where it leads.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.opt.MaxRedirects {
		return fmt.Errorf("more than %d redirects", f.opt.MaxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect to a %s: address", req.URL.Scheme)
	}
	if req.URL.User != nil {
		return errors.New("redirect to an address with a user name")
	}
	if netguard.NumericHost(req.URL.Hostname()) {
		return &netguard.BlockedError{Host: req.URL.Hostname(), Reason: "is an IPv4 address in a numeric form other than a.b.c.d, which is refused"}
	}
	return nil
}

// response is one fetched body with what is known of its type.
type response struct {
	url         *url.URL // after redirects
	contentType string   // media type, lower case
	header      string   // the Content-Type header as sent
	body        []byte
}

// get fetches u and reads its body up to the size cap.
func (f *Fetcher) get(ctx context.Context, u *url.URL) (response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return response{}, invalidURL(u.String())
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5")
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; Cairn)")
	resp, err := f.client.Do(req)
	if err != nil {
		return response{}, fetchError(u, err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return response{}, failed(u, fmt.Errorf("%s answered HTTP %d", final.Redacted(), resp.StatusCode))
	}
	if resp.ContentLength > f.opt.MaxBytes {
		return response{}, f.tooLarge(u, resp.ContentLength)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opt.MaxBytes+1))
	if err != nil {
		return response{}, fetchError(u, err)
	}
	if int64(len(body)) > f.opt.MaxBytes {
		return response{}, f.tooLarge(u, -1)
	}
	header := resp.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(header)
	if err != nil || mt == "" || mt == "application/octet-stream" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	return response{url: final, contentType: strings.ToLower(mt), header: header, body: body}, nil
}

func checkURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if len(raw) > maxURLLength {
		return nil, invalidURL(raw)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return nil, invalidURL(raw)
	}
	if netguard.NumericHost(u.Hostname()) {
		return nil, blocked(u, &netguard.BlockedError{Host: u.Hostname(), Reason: "is an IPv4 address in a numeric form other than a.b.c.d, which is refused"})
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}
