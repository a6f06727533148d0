package webfetch_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/webfetch"
)

// TestFetchThroughProxyChecksNames stands in for a fake-IP proxy on loopback: Cairn does
// not resolve the name, the proxy does, so the guard checks the name asked for and every
// redirect's.
func TestFetchThroughProxyChecksNames(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.String())
		mu.Unlock()
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, "http://127.0.0.1/admin", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("through the proxy"))
	}))
	t.Cleanup(proxy.Close)
	pu, _ := url.Parse(proxy.URL)
	s := newSite(t) // its dialer fails the test if anything but the proxy is dialled
	f := s.fetcher(webfetch.Options{Proxy: pu})
	p, err := f.Fetch(context.Background(), "http://fakeip.example/page")
	if err != nil || p.Markdown != "through the proxy" {
		t.Fatalf("through the proxy: %+v, %v", p, err)
	}
	for _, u := range []string{"http://127.0.0.1/", "http://[::1]/", "http://localhost/", "http://printer.local/",
		"http://metadata.google.internal/", "http://169.254.169.254/", "http://2130706433/", "http://fakeip.example/hop"} {
		if _, err := f.Fetch(context.Background(), u); !apperr.Is(err, apperr.FetchBlockedAddress) {
			t.Errorf("%s: err %v, want fetch_blocked_address", u, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 || asked[0] != "http://fakeip.example/page" || asked[1] != "http://fakeip.example/hop" {
		t.Fatalf("the proxy was asked for %v", asked)
	}
}

// TestReaderUsesTheSystemProxy: with no proxy in Settings, the environment's is used, with
// the same check by name.
func TestReaderUsesTheSystemProxy(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.String())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("system proxy"))
	}))
	t.Cleanup(proxy.Close)
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	s := newSite(t)
	r := webfetch.NewReader(webfetch.Options{Dialer: s.dialer, NoBrowser: true}, fakeSettings{}, nil)
	p, err := r.Read(context.Background(), "http://fakeip.example/page")
	if err != nil || p.Markdown != "system proxy" {
		t.Fatalf("%+v, %v", p, err)
	}
	if _, err := r.Read(context.Background(), "http://printer.local/"); !apperr.Is(err, apperr.FetchBlockedAddress) {
		t.Fatalf("local name through the proxy: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != "http://fakeip.example/page" {
		t.Fatalf("the proxy was asked for %v", asked)
	}
}
