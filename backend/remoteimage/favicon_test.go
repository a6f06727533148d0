package remoteimage_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/netguard"
	"github.com/cairn-app/cairn/backend/remoteimage"
)

// An ICO header and one 1×1 entry: what /favicon.ico usually is.
var ico = []byte{0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 32, 0, 0, 0, 0, 0, 22, 0, 0, 0}

// iconSites is one loopback test server standing in for every site: names resolve (by a
// fake resolver) to a public address or to private, link-local, metadata and mapped
// addresses; the dialer connects the public one to the loopback listener and fails the
// test if it is asked for anything else, so a broken guard fails instead of sending a
// packet anywhere.
type iconSites struct {
	ts    *httptest.Server
	paths chan string
	hits  atomic.Int32
	port  string
	d     *netguard.Dialer
}

func newIconSites(t *testing.T, handler http.HandlerFunc) *iconSites {
	t.Helper()
	s := &iconSites{paths: make(chan string, 64)}
	s.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.paths <- r.URL.RequestURI()
		handler(w, r)
	}))
	t.Cleanup(s.ts.Close)
	listen := s.ts.Listener.Addr().String()
	if ap, err := netip.ParseAddrPort(listen); err != nil || !ap.Addr().IsLoopback() {
		t.Fatalf("test server on %s, not loopback", listen)
	}
	_, s.port, _ = net.SplitHostPort(listen)
	s.d = &netguard.Dialer{
		Resolver: fakeResolver{
			"icons.example":    publicIP,
			"other.example":    publicIP,
			"intranet.example": "192.168.1.10",
			"metadata.example": "169.254.169.254",
			"ula.example":      "fd00::1",
			"mapped.example":   "::ffff:127.0.0.1",
			"cgnat.example":    "100.64.0.9",
		},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			if address != net.JoinHostPort(publicIP, s.port) {
				t.Errorf("dialled %s: only the public stand-in (loopback) may be dialled", address)
				return nil, errors.New("test dialer: refused")
			}
			var d net.Dialer
			return d.DialContext(ctx, network, listen)
		},
	}
	return s
}

func (s *iconSites) page(host, rest string) string { return "http://" + host + ":" + s.port + rest }

func (s *iconSites) favicons(on *atomic.Bool) *remoteimage.Favicons {
	return remoteimage.NewFavicons(remoteimage.FaviconOptions{
		Options: remoteimage.Options{Dialer: s.d},
		Enabled: func(context.Context) bool { return on.Load() },
	})
}

func TestFaviconsFetchOnlyTheSiteIconWhenOn(t *testing.T) {
	ctx := context.Background()
	s := newIconSites(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/x-icon")
		w.Write(ico)
	})
	var on atomic.Bool
	f := s.favicons(&on)
	page := s.page("icons.example", "/articles/42?q=what+the+user+asked#frag")

	// Off (the default): nothing is fetched, the window shows its generic icon.
	if _, err := f.Get(ctx, page); apperr.From(err).Code != apperr.FaviconsOff {
		t.Fatalf("off: %v, want %s", err, apperr.FaviconsOff)
	}
	if n := s.hits.Load(); n != 0 {
		t.Fatalf("off: %d requests", n)
	}

	on.Store(true)
	var wg sync.WaitGroup
	imgs := make([]remoteimage.Image, 8)
	errs := make([]error, 8)
	for i := range imgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			imgs[i], errs[i] = f.Get(ctx, page)
		}()
	}
	wg.Wait()
	for i := range imgs {
		if errs[i] != nil || !strings.HasPrefix(imgs[i].DataURL, "data:image/x-icon;base64,") || imgs[i].URL != s.page("icons.example", "/favicon.ico") {
			t.Fatalf("Get %d = %+v, %v", i, imgs[i], errs[i])
		}
	}
	// The same site again (another page, another case): from the cache.
	if _, err := f.Get(ctx, s.page("ICONS.example", "/other")); err != nil {
		t.Fatal(err)
	}
	if n := s.hits.Load(); n != 1 {
		t.Fatalf("%d requests for one site, want 1 shared and cached", n)
	}
	if p := <-s.paths; p != "/favicon.ico" {
		t.Fatalf("asked %q: only /favicon.ico may be sent, never the page's path or query", p)
	}
}

func TestFaviconsRefuseWhatIsNotAPublicSite(t *testing.T) {
	ctx := context.Background()
	s := newIconSites(t, func(w http.ResponseWriter, r *http.Request) {
		if host, port, _ := net.SplitHostPort(r.Host); host == "other.example" {
			http.Redirect(w, r, "http://127.0.0.1:"+port+"/favicon.ico", http.StatusFound)
			return
		}
		http.NotFound(w, r)
	})
	on := &atomic.Bool{}
	on.Store(true)
	f := s.favicons(on)
	tests := []struct {
		name, url string
		code      apperr.Code
		hits      int32 // requests the stand-in has had after this case
	}{
		{"javascript", "javascript:alert(document.domain)", apperr.ImageURLInvalid, 0},
		{"data", "data:image/png;base64,AAAA", apperr.ImageURLInvalid, 0},
		{"file", "file:///etc/passwd", apperr.ImageURLInvalid, 0},
		{"credentials", "http://user:pw@icons.example/", apperr.ImageURLInvalid, 0},
		{"private", s.page("intranet.example", "/"), apperr.ImageAddressRefused, 0},
		{"metadata", s.page("metadata.example", "/latest/meta-data"), apperr.ImageAddressRefused, 0},
		{"ula", s.page("ula.example", "/"), apperr.ImageAddressRefused, 0},
		{"mapped loopback", s.page("mapped.example", "/"), apperr.ImageAddressRefused, 0},
		{"cgnat", s.page("cgnat.example", "/"), apperr.ImageAddressRefused, 0},
		{"loopback literal", s.ts.URL + "/", apperr.ImageAddressRefused, 0},
		{"decimal loopback", "http://2130706433:" + s.port + "/", apperr.ImageAddressRefused, 0},
		{"redirect to loopback", s.page("other.example", "/"), apperr.ImageAddressRefused, 1},
		{"no icon", s.page("icons.example", "/"), apperr.ImageFetchFailed, 2},
		{"no icon, cached", s.page("icons.example", "/again"), apperr.ImageFetchFailed, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Get(ctx, tt.url)
			if got := apperr.From(err).Code; got != tt.code {
				t.Errorf("Get(%q) = %v (%s), want %s", tt.url, err, got, tt.code)
			}
			if n := s.hits.Load(); n != tt.hits {
				t.Errorf("after %s: %d requests reached the stand-in, want %d", tt.name, n, tt.hits)
			}
		})
	}
}
