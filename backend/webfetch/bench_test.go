package webfetch_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cairn-app/cairn/backend/netguard"
	"github.com/cairn-app/cairn/backend/webfetch"
	"github.com/cairn-app/cairn/backend/webfetch/benchpages"
)

// BenchmarkFetchToMarkdown reads each benchmark page the whole way: HTTP from a loopback
// server (reached under a public name, through the guard), charset, readability,
// Markdown, cut. bench/webfetch.sh runs the same pages against the peers' pipeline.
func BenchmarkFetchToMarkdown(b *testing.B) {
	mux := http.NewServeMux()
	pages := benchpages.All()
	for _, p := range pages {
		body := []byte(p.HTML)
		mux.HandleFunc("/"+p.Name, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(body)
		})
	}
	ts := httptest.NewServer(mux)
	defer ts.Close()
	f := webfetch.New(webfetch.Options{Dialer: loopbackAs(ts), NoBrowser: true})
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	for _, p := range pages {
		b.Run(p.Name, func(b *testing.B) {
			u := "http://bench.example:" + port + "/" + p.Name
			b.SetBytes(int64(len(p.HTML)))
			for b.Loop() {
				if _, err := f.Fetch(context.Background(), u); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// loopbackAs is a guard whose resolver names bench.example a public address and whose
// dialer connects that address to ts, and nothing else.
func loopbackAs(ts *httptest.Server) *netguard.Dialer {
	listen := ts.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(listen)
	return &netguard.Dialer{
		Resolver: fakeResolver{"bench.example": publicIP},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			if address != net.JoinHostPort(publicIP, port) {
				return nil, errors.New("bench dialer: only the bench server")
			}
			var d net.Dialer
			return d.DialContext(ctx, network, listen)
		},
	}
}
