package remoteimage_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/netguard"
	"github.com/cairn-app/cairn/backend/remoteimage"
)

// A 1×1 PNG.
var pixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")

const publicIP = "93.184.215.14"

type fakeResolver map[string]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := f[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

// imageHost is a test server reached under public names: the guard checks the public
// address the fake resolver gives, and the dialer connects to the loopback listener
// instead. It fails the test if it is ever asked to dial anything else, so no test sends
// traffic beyond loopback.
type imageHost struct {
	ts     *httptest.Server
	hits   map[string]*atomic.Int32
	dialer *netguard.Dialer
}

func newImageHost(t *testing.T, routes map[string]http.HandlerFunc) *imageHost {
	t.Helper()
	h := &imageHost{hits: map[string]*atomic.Int32{}}
	mux := http.NewServeMux()
	for path, fn := range routes {
		n := &atomic.Int32{}
		h.hits[path] = n
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			fn(w, r)
		})
	}
	h.ts = httptest.NewServer(mux)
	t.Cleanup(h.ts.Close)
	listen := h.ts.Listener.Addr().String()
	if ap, err := netip.ParseAddrPort(listen); err != nil || !ap.Addr().IsLoopback() {
		t.Fatalf("test server on %s, not loopback", listen)
	}
	_, port, _ := net.SplitHostPort(listen)
	h.dialer = &netguard.Dialer{
		Resolver: fakeResolver{"images.example": publicIP, "rebind.example": "10.0.0.7"},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			if address != net.JoinHostPort(publicIP, port) {
				t.Errorf("dialled %s: only the test server's public stand-in may be dialled", address)
				return nil, errors.New("test dialer: refused")
			}
			var d net.Dialer
			return d.DialContext(ctx, network, listen)
		},
	}
	return h
}

func (h *imageHost) url(path string) string {
	_, port, _ := net.SplitHostPort(h.ts.Listener.Addr().String())
	return "http://images.example:" + port + path
}

func (h *imageHost) loopbackURL(path string) string { return h.ts.URL + path }

func serve(ct string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		} else {
			w.Header()["Content-Type"] = nil // no sniffing by net/http either
		}
		w.Write(body)
	}
}

func TestFetch(t *testing.T) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`)
	big := bytes.Repeat([]byte{0}, 2048)
	var h *imageHost
	h = newImageHost(t, map[string]http.HandlerFunc{
		"/pixel.png": serve("image/png", pixel),
		"/chart.svg": serve("image/svg+xml; charset=utf-8", svg),
		"/page.html": serve("text/html", []byte("<html>")),
		"/fake.png":  serve("image/png", []byte("<html><script>x</script></html>")),
		"/none":      serve("", pixel),
		"/big.png":   serve("image/png", append(append([]byte{}, pixel...), big...)),
		"/stream.png": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			w.Write(pixel)
			w.(http.Flusher).Flush() // chunked: no Content-Length to refuse it by
			w.Write(big)
		},
		"/missing.png": func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
		"/to-loopback": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, h.loopbackURL("/secret"), http.StatusFound)
		},
		"/to-file": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		},
		"/secret": serve("image/png", pixel),
	})
	f := remoteimage.New(remoteimage.Options{Dialer: h.dialer, MaxBytes: 1024})
	tests := []struct {
		name, url, code, ctype string
	}{
		{"a PNG", h.url("/pixel.png?leak=conversation"), "", "image/png"},
		{"an SVG", h.url("/chart.svg"), "", "image/svg+xml"},
		{"HTML", h.url("/page.html"), "image_not_an_image", ""},
		{"HTML that says it is a PNG", h.url("/fake.png"), "image_not_an_image", ""},
		{"no content type", h.url("/none"), "image_not_an_image", ""},
		{"over the limit by its length", h.url("/big.png"), "image_too_large", ""},
		{"over the limit while reading", h.url("/stream.png"), "image_too_large", ""},
		{"an error status", h.url("/missing.png"), "image_fetch_failed", ""},
		{"a redirect to loopback", h.url("/to-loopback"), "image_address_refused", ""},
		{"a redirect to a file", h.url("/to-file"), "image_fetch_failed", ""},
		{"a name resolving to a private address", "http://rebind.example/x.png", "image_address_refused", ""},
		{"loopback by address", h.loopbackURL("/secret"), "image_address_refused", ""},
		{"IPv6 loopback", "http://[::1]:1/x.png", "image_address_refused", ""},
		{"cloud metadata", "http://169.254.169.254/latest/meta-data", "image_address_refused", ""},
		{"javascript:", "javascript:alert(1)", "image_url_invalid", ""},
		{"file:", "file:///etc/passwd", "image_url_invalid", ""},
		{"data:", "data:image/png;base64,AAAA", "image_url_invalid", ""},
		{"credentials in the address", "http://user:pass@images.example/x.png", "image_url_invalid", ""},
		{"no host", "http:///x.png", "image_url_invalid", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := f.Fetch(context.Background(), tt.url)
			if tt.code != "" {
				if err == nil {
					t.Fatalf("fetched %s (%d bytes)", img.ContentType, img.Size)
				}
				if got := apperr.From(err).Code; string(got) != tt.code {
					t.Fatalf("code %s, want %s (%v)", got, tt.code, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if img.ContentType != tt.ctype || !strings.HasPrefix(img.DataURL, "data:"+tt.ctype+";base64,") {
				t.Fatalf("image %s, data URL %.40s", img.ContentType, img.DataURL)
			}
			raw, err := base64.StdEncoding.DecodeString(strings.SplitN(img.DataURL, ",", 2)[1])
			if err != nil || len(raw) != img.Size {
				t.Fatalf("data URL decodes to %d bytes (%v), size %d", len(raw), err, img.Size)
			}
		})
	}
	if n := h.hits["/secret"].Load(); n != 0 {
		t.Fatalf("the loopback-only route was reached %d times", n)
	}
}

// TestDefaultGuardRefusesLoopback: without an injected dialer nothing on this machine is
// reached, whatever the address says.
func TestDefaultGuardRefusesLoopback(t *testing.T) {
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		serve("image/png", pixel)(w, r)
	}))
	defer ts.Close()
	u, _ := url.Parse(ts.URL)
	f := remoteimage.New(remoteimage.Options{})
	for _, raw := range []string{ts.URL + "/x.png", "http://[::ffff:127.0.0.1]:" + u.Port() + "/x.png", "http://0.0.0.0:" + u.Port() + "/x.png"} {
		_, err := f.Fetch(context.Background(), raw)
		if got := apperr.From(err).Code; got != apperr.ImageAddressRefused {
			t.Fatalf("%s: code %s (%v)", raw, got, err)
		}
		if p := apperr.From(err).Params["host"]; p == nil || p == "" {
			t.Fatalf("%s: no host in %v", raw, apperr.From(err).Params)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the loopback server got %d requests", hits.Load())
	}
}

// TestFetchGivesUp: a server that never answers is left after the timeout, with an error
// the window can show and retry.
func TestFetchGivesUp(t *testing.T) {
	h := newImageHost(t, map[string]http.HandlerFunc{
		"/stall.png": func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
	})
	f := remoteimage.New(remoteimage.Options{Dialer: h.dialer, Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := f.Fetch(context.Background(), h.url("/stall.png"))
	if ae := apperr.From(err); ae.Code != apperr.ImageFetchFailed || ae.Action == nil || ae.Action.Kind != "retry" {
		t.Fatalf("err %v (%+v)", err, ae)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("gave up after %v", d)
	}
}
