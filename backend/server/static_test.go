package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"regexp"
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

func TestStaticPrecompressed(t *testing.T) {
	script := strings.Repeat("console.log('cairn');\n", 200)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	if _, err := zw.Write([]byte(script)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, func(c *server.Config) {
		c.Assets = fstest.MapFS{
			"index.html":         {Data: []byte("<!doctype html><div id=root></div>")},
			"assets/app-1.js":    {Data: []byte(script)},
			"assets/app-1.js.gz": {Data: zipped.Bytes()},
			"assets/small-1.js":  {Data: []byte(script)}, // no .gz written for it
			"assets/style-1.css": {Data: []byte("body{margin:0}")},
		}
	})
	tests := []struct {
		name, method, path, accept string
		gzipped, vary              bool
		ctype                      string
	}{
		{"gzip accepted", "GET", "/assets/app-1.js", "gzip, deflate, br, zstd", true, true, "text/javascript; charset=utf-8"},
		{"gzip with a lower q", "GET", "/assets/app-1.js", "br;q=1.0, gzip;q=0.5", true, true, "text/javascript; charset=utf-8"},
		{"x-gzip", "GET", "/assets/app-1.js", "x-gzip", true, true, "text/javascript; charset=utf-8"},
		{"any coding", "GET", "/assets/app-1.js", "*", true, true, "text/javascript; charset=utf-8"},
		{"HEAD tells the same", "HEAD", "/assets/app-1.js", "gzip", true, true, "text/javascript; charset=utf-8"},
		{"gzip refused with q=0", "GET", "/assets/app-1.js", "gzip;q=0, deflate", false, true, "text/javascript; charset=utf-8"},
		{"any but gzip", "GET", "/assets/app-1.js", "*, gzip;q=0", false, true, "text/javascript; charset=utf-8"},
		{"identity only", "GET", "/assets/app-1.js", "identity", false, true, "text/javascript; charset=utf-8"},
		{"other codings only", "GET", "/assets/app-1.js", "br, deflate", false, true, "text/javascript; charset=utf-8"},
		{"no compressed copy", "GET", "/assets/small-1.js", "gzip", false, false, "text/javascript; charset=utf-8"},
		{"stylesheet without copy", "GET", "/assets/style-1.css", "gzip", false, false, "text/css; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.do(t, tt.method, tt.path, nil, bearer(testToken), header("Accept-Encoding", tt.accept))
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %.200s", r.status, r.body)
			}
			if got := r.header.Get("Content-Type"); got != tt.ctype {
				t.Fatalf("Content-Type %q, want %q", got, tt.ctype)
			}
			if got := r.header.Get("Cache-Control"); got != "private, max-age=31536000, immutable" {
				t.Fatalf("Cache-Control %q", got)
			}
			if got := r.header.Get("Vary") == "Accept-Encoding"; got != tt.vary {
				t.Fatalf("Vary %q, want Accept-Encoding: %v", r.header.Get("Vary"), tt.vary)
			}
			if got := r.header.Get("Content-Encoding") == "gzip"; got != tt.gzipped {
				t.Fatalf("Content-Encoding %q, want gzip: %v", r.header.Get("Content-Encoding"), tt.gzipped)
			}
			if tt.method == "HEAD" {
				if len(r.body) != 0 {
					t.Fatal("HEAD returned a body")
				}
				return
			}
			body := r.body
			if tt.gzipped {
				zr, err := gzip.NewReader(bytes.NewReader(r.body))
				if err != nil {
					t.Fatalf("not gzip: %v", err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatalf("gunzip: %v", err)
				}
			}
			want := script
			if strings.HasSuffix(tt.path, ".css") {
				want = "body{margin:0}"
			}
			if string(body) != want {
				t.Fatalf("body %.80q…, want %.80q…", body, want)
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
		{"/", nil}, // the page without data
		{"/assets/index-abc1.js", nil},
		{"/api/health", []reqOpt{bearer(testToken)}},
		{"/api/health", nil},   // 401
		{"/?token=wrong", nil}, // the 401 page
		{"/api/health", []reqOpt{bearer(testToken), host("evil.example")}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			h := ts.do(t, http.MethodGet, tt.path, nil, tt.opts...).header
			if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
				t.Fatalf("headers %v", h)
			}
			assertStrictCSP(t, h)
		})
	}
}

// assertStrictCSP checks the policy of `serve` and of the desktop window, whole: nothing
// but the app's own scripts, and images only from the app itself or data: and blob: URLs
// (the forms tool images, fetched remote images and site icons take), so no Markdown image
// can make the window ask another host for anything. Every directive is compared, and one
// the policy gains or loses fails, so allowing tool images widens nothing else.
func assertStrictCSP(t *testing.T, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	directives := map[string]string{}
	for _, d := range strings.Split(csp, ";") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		name, value, _ := strings.Cut(d, " ")
		if _, dup := directives[name]; dup {
			t.Fatalf("CSP %q names %s twice", csp, name)
		}
		directives[name] = value
	}
	want := map[string]string{
		"default-src":     "'self'",
		"script-src":      "'self'",
		"style-src":       "'self' 'unsafe-inline'",
		"img-src":         "'self' data: blob:",
		"font-src":        "'self' data:",
		"connect-src":     "'self'",
		"object-src":      "'none'",
		"base-uri":        "'self'",
		"form-action":     "'self'",
		"frame-ancestors": "'none'",
	}
	for name, value := range want {
		if directives[name] != value {
			t.Fatalf("CSP %q: %s is %q, want %q", csp, name, directives[name], value)
		}
	}
	for name := range directives {
		if _, ok := want[name]; !ok {
			t.Fatalf("CSP %q has %s, which the policy does not allow for", csp, name)
		}
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

// TestIndexHTMLCarriesThePolicy: frontend/index.html repeats the header's policy as a
// <meta> (for a page that arrives without the header), all of it but frame-ancestors,
// which a <meta> cannot set.
func TestIndexHTMLCarriesThePolicy(t *testing.T) {
	src, err := os.ReadFile("../../frontend/index.html")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("frontend/index.html has no Content-Security-Policy <meta>")
	}
	ts := newTestServer(t, nil)
	header := ts.do(t, http.MethodGet, "/", nil).header.Get("Content-Security-Policy")
	want := strings.TrimSuffix(strings.TrimSpace(strings.ReplaceAll(header, "; frame-ancestors 'none'", "")), ";")
	if got := string(m[1]); got != want {
		t.Fatalf("index.html's policy\n  %s\ndiffers from the header's (without frame-ancestors)\n  %s", got, want)
	}
	assertStrictCSP(t, http.Header{"Content-Security-Policy": {string(m[1]) + "; frame-ancestors 'none'"}})
}
