package server_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cairn-app/cairn/backend/server"
)

func TestStaticFiles(t *testing.T) {
	ts := newTestServer(t, nil)
	const index = "id=root"
	tests := []struct {
		name, method, path, accept string
		status                     int
		ctype, cache, body         string
	}{
		{"root is index.html", "GET", "/", "", 200, "text/html; charset=utf-8", "no-cache", index},
		{"index.html by name", "GET", "/index.html", "", 200, "text/html; charset=utf-8", "no-cache", index},
		{"HEAD of root", "HEAD", "/", "", 200, "text/html; charset=utf-8", "no-cache", ""},
		{"hashed script", "GET", "/assets/index-abc1.js", "", 200, "text/javascript; charset=utf-8", "private, max-age=31536000, immutable", "console.log"},
		{"hashed stylesheet", "GET", "/assets/index-abc1.css", "", 200, "text/css; charset=utf-8", "private, max-age=31536000, immutable", "margin:0"},
		{"svg at the root", "GET", "/favicon.svg", "", 200, "image/svg+xml", "no-cache", "<svg"},
		{"client route falls back to index", "GET", "/settings/providers", "", 200, "text/html; charset=utf-8", "no-cache", index},
		{"dotted client route asked as a page", "GET", "/kb/notes.md", "text/html,application/xhtml+xml", 200, "text/html; charset=utf-8", "no-cache", index},
		{"directory falls back to index", "GET", "/assets/", "", 200, "text/html; charset=utf-8", "no-cache", index},
		{"missing script is 404, not HTML", "GET", "/assets/missing.js", "*/*", 404, "text/plain; charset=utf-8", "", "not found"},
		{"escape attempt stays inside", "GET", "/../../etc/passwd", "", 200, "text/html; charset=utf-8", "no-cache", index},
		{"unknown API GET is not the SPA", "GET", "/api/Nope", "text/html", 405, "application/json", "no-store", "bad_request_body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []reqOpt{bearer(testToken)}
			if tt.accept != "" {
				opts = append(opts, header("Accept", tt.accept))
			}
			r := ts.do(t, tt.method, tt.path, nil, opts...)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %.200s", r.status, tt.status, r.body)
			}
			if got := r.header.Get("Content-Type"); !strings.HasPrefix(got, tt.ctype) {
				t.Fatalf("Content-Type %q, want %q", got, tt.ctype)
			}
			if tt.cache != "" && r.header.Get("Cache-Control") != tt.cache {
				t.Fatalf("Cache-Control %q, want %q", r.header.Get("Cache-Control"), tt.cache)
			}
			if !strings.Contains(strings.ToLower(string(r.body)), strings.ToLower(tt.body)) {
				t.Fatalf("body %.200q lacks %q", r.body, tt.body)
			}
			if tt.method == "HEAD" && len(r.body) != 0 {
				t.Fatalf("HEAD returned a body")
			}
		})
	}
}

func TestSecurityHeadersOnEveryAnswer(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, tt := range []struct {
		path string
		opts []reqOpt
	}{
		{"/", []reqOpt{bearer(testToken)}},
		{"/assets/index-abc1.js", []reqOpt{bearer(testToken)}},
		{"/api/health", []reqOpt{bearer(testToken)}},
		{"/", nil}, // the 401 page
		{"/api/health", []reqOpt{bearer(testToken), host("evil.example")}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			h := ts.do(t, http.MethodGet, tt.path, nil, tt.opts...).header
			if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
				t.Fatalf("headers %v", h)
			}
			csp := h.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Fatalf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
				t.Fatalf("CSP allows inline scripts: %q", csp)
			}
		})
	}
}

func TestFrontendNotBuilt(t *testing.T) {
	tests := []struct {
		name   string
		assets fstest.MapFS
		nilFS  bool
	}{
		{"no assets at all", nil, true},
		{"assets without index.html", fstest.MapFS{"assets/x.js": {Data: []byte("x")}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, func(c *server.Config) {
				c.Assets = tt.assets
				if tt.nilFS {
					c.Assets = nil
				}
			})
			if ts.srv.FrontendBuilt() {
				t.Fatal("FrontendBuilt() = true")
			}
			for _, path := range []string{"/", "/settings"} {
				r := ts.do(t, http.MethodGet, path, nil, bearer(testToken))
				if r.status != http.StatusServiceUnavailable || !strings.Contains(string(r.body), "frontend not built: run make build") {
					t.Fatalf("%s: %d %s", path, r.status, r.body)
				}
			}
			// The API keeps working without a frontend.
			if r := ts.call(t, "Echo", `["x"]`); r.status != 200 {
				t.Fatalf("call: %d", r.status)
			}
		})
	}
	if ts := newTestServer(t, nil); !ts.srv.FrontendBuilt() {
		t.Fatal("FrontendBuilt() = false with index.html")
	}
}
