package webfetch_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-app/cairn/backend/netguard"
	"github.com/cairn-app/cairn/backend/webfetch"
)

// publicIP is the address the test resolver gives the test site's public names; the test
// dialer connects it to the loopback listener instead, and fails the test if it is asked
// for any other address, so a broken guard fails the test rather than reaching out.
const publicIP = "93.184.215.14"

type fakeResolver map[string]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := f[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

// site is a local web site reached as http://site.example:<port>.
type site struct {
	t      *testing.T
	ts     *httptest.Server
	mux    *http.ServeMux
	port   string
	dialer *netguard.Dialer
	mu     sync.Mutex
	hits   map[string]int
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{t: t, mux: http.NewServeMux(), hits: map[string]int{}}
	s.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		s.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.ts.Close)
	listen := s.ts.Listener.Addr().String()
	if ap, err := netip.ParseAddrPort(listen); err != nil || !ap.Addr().IsLoopback() {
		t.Fatalf("test server on %s, not loopback", listen)
	}
	_, s.port, _ = net.SplitHostPort(listen)
	s.dialer = &netguard.Dialer{
		Resolver: fakeResolver{
			"site.example":     publicIP,
			"rebind.example":   "10.0.0.7",
			"metadata.example": "169.254.169.254",
			"cgnat.example":    "100.64.1.2",
			"mapped.example":   "::ffff:127.0.0.1",
			"nas.example":      "192.168.1.5",
		},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			var d net.Dialer
			switch address {
			case net.JoinHostPort(publicIP, s.port):
				return d.DialContext(ctx, network, listen)
			case net.JoinHostPort("192.168.1.5", s.port): // the allowed private host's stand-in
				return d.DialContext(ctx, network, listen)
			}
			t.Errorf("dialled %s: only the test site's stand-ins may be dialled", address)
			return nil, errors.New("test dialer: refused")
		},
	}
	return s
}

func (s *site) handle(path string, h http.HandlerFunc) { s.mux.HandleFunc(path, h) }

func (s *site) serve(path, ct string, body []byte) {
	s.handle(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write(body)
	})
}

func (s *site) url(path string) string { return "http://site.example:" + s.port + path }

func (s *site) loopbackURL(path string) string { return s.ts.URL + path }

func (s *site) hit(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *site) fetcher(o webfetch.Options) *webfetch.Fetcher {
	o.Dialer = s.dialer
	if o.Browser == "" {
		o.NoBrowser = true
	}
	return webfetch.New(o)
}

// article is a page with enough text for readability to take it for an article.
func article(title, body string) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>" + title + "</title></head><body>")
	b.WriteString("<nav><a href='/'>Home</a> <a href='/about'>About</a></nav><article><h1>" + title + "</h1>")
	b.WriteString(body)
	b.WriteString("</article><footer>Footer links</footer></body></html>")
	return b.String()
}

func paragraphs(text string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("<p>" + text + "</p>\n")
	}
	return b.String()
}
