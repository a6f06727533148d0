package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/server"
)

func (ts *testServer) port(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(ts.ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

func TestEveryAPIRouteNeedsTheBearerToken(t *testing.T) {
	ts := newTestServer(t, nil)
	routes := []struct{ method, path string }{
		{http.MethodGet, "/api/health"},
		{http.MethodGet, "/api/events"},
		{http.MethodPost, "/api/Echo"},
		{http.MethodPost, "/api/Nope"},
		{http.MethodPost, "/api/Echo?token=" + testToken}, // the address never authorizes a call
	}
	creds := []struct {
		name string
		opts []reqOpt
		ok   bool
	}{
		{"no token", nil, false},
		{"wrong bearer", []reqOpt{bearer("wrong")}, false},
		{"token prefix only", []reqOpt{bearer(testToken[:10])}, false},
		{"token with extra tail", []reqOpt{bearer(testToken + "x")}, false},
		{"wrong scheme", []reqOpt{header("Authorization", "Basic "+testToken)}, false},
		// Browsers send a host's cookies to every port: the right token in a cookie is
		// exactly what another local server would receive, so it counts for nothing.
		{"the token as a cookie", []reqOpt{cookie(testToken)}, false},
		{"bearer", []reqOpt{bearer(testToken)}, true},
		{"bearer, lower-case scheme", []reqOpt{header("Authorization", "bearer "+testToken)}, true},
	}
	for _, rt := range routes {
		for _, c := range creds {
			t.Run(rt.method+" "+rt.path+"/"+c.name, func(t *testing.T) {
				if c.ok && rt.path == "/api/events" {
					// An authorized stream stays open: check its start only.
					req, _ := http.NewRequest(rt.method, ts.ts.URL+rt.path, nil)
					for _, o := range c.opts {
						o(req)
					}
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					resp, err := http.DefaultClient.Do(req.WithContext(ctx))
					if err != nil {
						t.Fatal(err)
					}
					defer resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("status %d", resp.StatusCode)
					}
					return
				}
				r := ts.do(t, rt.method, rt.path, strings.NewReader(`["x"]`), c.opts...)
				if c.ok {
					if r.status == http.StatusUnauthorized {
						t.Fatalf("refused a valid token: %s", r.body)
					}
					return
				}
				if r.status != http.StatusUnauthorized {
					t.Fatalf("status %d, want 401: %s", r.status, r.body)
				}
				if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
					t.Fatalf("WWW-Authenticate %q", r.header.Get("WWW-Authenticate"))
				}
				if e := decodeErr(t, r).Error; e.Code != "unauthorized" {
					t.Fatalf("code %s", e.Code)
				}
			})
		}
	}
}

// TestPagesAndFilesNeedNoToken: the built files hold no data, so any request that passes
// the Host and Origin checks gets them; only a page that shows the token carries snapshots
// (TestPageAccess).
func TestPagesAndFilesNeedNoToken(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, path := range []string{"/", "/index.html", "/assets/index-abc1.js", "/settings/providers"} {
		t.Run(path, func(t *testing.T) {
			r := ts.do(t, http.MethodGet, path, nil)
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if len(r.header.Values("Set-Cookie")) != 0 {
				t.Fatalf("Set-Cookie %v: the token must never be a cookie", r.header.Values("Set-Cookie"))
			}
		})
	}
}

func TestHealth(t *testing.T) {
	ts := newTestServer(t, nil)
	r := ts.do(t, http.MethodGet, "/api/health", nil, bearer(testToken))
	if r.status != 200 || !jsonEqual(t, r.body, `{"ok":true}`) {
		t.Fatalf("health %d %s", r.status, r.body)
	}
	if r := ts.do(t, http.MethodGet, "/api/health", nil); r.status != 401 {
		t.Fatalf("health without token: %d", r.status)
	}
}

// TestPageAccess: the address `serve` prints (?token=) opens the page with its snapshots,
// answered in place: no redirect and no cookie (the page moves the token into its session
// storage and out of the address itself). The same page without the token carries no
// call's answer; a wrong token in the address is refused.
func TestPageAccess(t *testing.T) {
	ts := newTestServer(t, func(c *server.Config) {
		c.Bound = &settingsApp{language: "en", prompt: "my private system prompt"}
		c.Assets = pageAssets()
	})
	tests := []struct {
		name     string
		path     string
		opts     []reqOpt
		status   int
		withData bool
	}{
		{"the printed address", "/?token=" + testToken, nil, 200, true},
		{"a deep route with the token", "/settings/providers?token=" + testToken + "&lang=zh-CN", nil, 200, true},
		{"the bearer header", "/", []reqOpt{bearer(testToken)}, 200, true},
		{"a reload: no token", "/", nil, 200, false},
		{"the token as a cookie", "/", []reqOpt{cookie(testToken)}, 200, false},
		{"a wrong bearer", "/", []reqOpt{bearer("wrong")}, 200, false},
		{"a wrong token in the address", "/?token=wrong", nil, 401, false},
		{"an empty token in the address", "/?token=", nil, 401, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.do(t, http.MethodGet, tt.path, nil, tt.opts...)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if len(r.header.Values("Set-Cookie")) != 0 {
				t.Fatalf("Set-Cookie %v", r.header.Values("Set-Cookie"))
			}
			body := string(r.body)
			if tt.status != 200 {
				if strings.Contains(body, "cairn-page-data") || strings.Contains(body, "id=root") {
					t.Fatalf("refused page leaked content: %s", body)
				}
				return
			}
			if r.header.Get("Cache-Control") != "no-store" {
				t.Fatalf("Cache-Control %q", r.header.Get("Cache-Control"))
			}
			d, _ := readPageData(t, r.body)
			if tt.withData != (d.Calls["GetSettings"] != nil) {
				t.Fatalf("calls %v, want data: %v", d.Calls, tt.withData)
			}
			if !tt.withData && (len(d.Calls) != 0 || strings.Contains(body, "my private system prompt")) {
				t.Fatalf("a page without the token carries data: %s", body)
			}
			if d.Locale == nil || d.Locale.Lng != "en" {
				t.Fatalf("locale %+v: every page carries the build's strings", d.Locale)
			}
			if strings.Contains(body, testToken) {
				t.Fatal("the page holds the token")
			}
		})
	}
}

// TestTwoServersSideBySide: each server takes only its own token; neither answers with
// anything another server on the host could pick up.
func TestTwoServersSideBySide(t *testing.T) {
	a := newTestServer(t, nil)
	b := newTestServer(t, func(c *server.Config) { c.Token = "another-token-for-server-b" })
	if r := a.call(t, "Echo", `["a"]`); r.status != 200 {
		t.Fatalf("a: %d", r.status)
	}
	if r := b.call(t, "Echo", `["b"]`); r.status != http.StatusUnauthorized {
		t.Fatalf("b took a's token: %d", r.status)
	}
	if r := b.call(t, "Echo", `["b"]`, bearer("another-token-for-server-b")); r.status != 200 {
		t.Fatalf("b with its token: %d %s", r.status, r.body)
	}
	for _, ts := range []*testServer{a, b} {
		r := ts.do(t, http.MethodGet, "/?token="+testToken, nil)
		if len(r.header.Values("Set-Cookie")) != 0 {
			t.Fatalf("Set-Cookie %v", r.header.Values("Set-Cookie"))
		}
	}
}

func TestHostAndOriginChecks(t *testing.T) {
	ts := newTestServer(t, nil)
	port := ts.port(t)
	tests := []struct {
		name string
		path string
		opts []reqOpt
		ok   bool
	}{
		{"listening address", "/api/health", nil, true},
		{"localhost", "/api/health", []reqOpt{host("localhost:" + port)}, true},
		{"LOCALHOST, any case", "/api/health", []reqOpt{host("LocalHost:" + port)}, true},
		{"IPv6 loopback", "/api/health", []reqOpt{host("[::1]:" + port)}, true},
		{"foreign host (DNS rebinding)", "/api/health", []reqOpt{host("evil.example:" + port)}, false},
		{"foreign host on a page", "/", []reqOpt{host("evil.example:" + port)}, false},
		{"loopback name, other port", "/api/health", []reqOpt{host("localhost:1")}, false},
		{"no port", "/api/health", []reqOpt{host("127.0.0.1")}, false},
		{"subdomain of localhost", "/api/health", []reqOpt{host("localhost.evil.example:" + port)}, false},
		{"same origin", "/api/health", []reqOpt{header("Origin", "http://127.0.0.1:"+port)}, true},
		{"same origin via localhost", "/api/health", []reqOpt{header("Origin", "http://localhost:"+port)}, true},
		{"foreign origin", "/api/health", []reqOpt{header("Origin", "http://evil.example")}, false},
		{"foreign origin on a call", "/api/Echo", []reqOpt{header("Origin", "http://evil.example")}, false},
		{"foreign origin on events", "/api/events", []reqOpt{header("Origin", "http://evil.example")}, false},
		{"foreign origin with our port", "/api/health", []reqOpt{header("Origin", "http://evil.example:"+port)}, false},
		{"origin null", "/api/health", []reqOpt{header("Origin", "null")}, false},
		{"https origin", "/api/health", []reqOpt{header("Origin", "https://127.0.0.1:"+port)}, false},
		{"origin on another port", "/api/health", []reqOpt{header("Origin", "http://127.0.0.1:1")}, false},
		{"origin with suffix trick", "/api/health", []reqOpt{header("Origin", "http://127.0.0.1:"+port+".evil.example")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := http.MethodGet
			var body *strings.Reader
			if strings.HasPrefix(tt.path, "/api/E") {
				method, body = http.MethodPost, strings.NewReader(`["x"]`)
			} else {
				body = strings.NewReader("")
			}
			r := ts.do(t, method, tt.path, body, append([]reqOpt{bearer(testToken)}, tt.opts...)...)
			if tt.ok {
				if r.status != 200 {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
				return
			}
			if r.status != http.StatusForbidden {
				t.Fatalf("status %d, want 403: %s", r.status, r.body)
			}
			if strings.HasPrefix(tt.path, "/api/") {
				if e := decodeErr(t, r).Error; e.Code != "origin_rejected" {
					t.Fatalf("code %s", e.Code)
				}
			}
		})
	}
}

func TestAllowRemoteAcceptsConfiguredHost(t *testing.T) {
	ts := newTestServer(t, func(c *server.Config) {
		c.Addr = "cairn.lan:0"
		c.AllowRemote = true
	})
	port := ts.port(t)
	tests := []struct {
		host   string
		origin string
		status int
	}{
		{"cairn.lan:" + port, "", 200},
		{"cairn.lan:" + port, "http://cairn.lan:" + port, 200},
		{"evil.example:" + port, "", 403},
		{"cairn.lan:" + port, "http://evil.example:" + port, 403},
	}
	for _, tt := range tests {
		t.Run(tt.host+" "+tt.origin, func(t *testing.T) {
			opts := []reqOpt{bearer(testToken), host(tt.host)}
			if tt.origin != "" {
				opts = append(opts, header("Origin", tt.origin))
			}
			if r := ts.do(t, http.MethodGet, "/api/health", nil, opts...); r.status != tt.status {
				t.Fatalf("status %d, want %d", r.status, tt.status)
			}
		})
	}
}

func TestNewRefusesNonLoopbackWithoutAllowRemote(t *testing.T) {
	tests := []struct {
		addr        string
		allowRemote bool
		code        string // "" = accepted
	}{
		{"127.0.0.1:0", false, ""},
		{"127.0.0.2:8080", false, ""},
		{"localhost:0", false, ""},
		{"[::1]:0", false, ""},
		{"", false, ""}, // default 127.0.0.1:0
		{"0.0.0.0:0", false, "remote_not_allowed"},
		{":8080", false, "remote_not_allowed"},
		{"[::]:0", false, "remote_not_allowed"},
		{"192.168.1.10:8080", false, "remote_not_allowed"},
		{"example.com:80", false, "remote_not_allowed"},
		{"0.0.0.0:0", true, ""},
		{"192.168.1.10:8080", true, ""},
		{"no-port", false, "invalid_argument"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			_, err := server.New(server.Config{Addr: tt.addr, AllowRemote: tt.allowRemote})
			if tt.code != "" {
				// Listen checks the same way before it listens.
				ln, lerr := server.Listen(context.Background(), tt.addr, tt.allowRemote)
				if lerr == nil {
					ln.Close()
					t.Fatal("Listen accepted")
				}
				assertCode(t, lerr, tt.code)
			}
			if tt.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tt.addr) {
				t.Fatalf("message %q does not name the address", err.Error())
			}
			assertCode(t, err, tt.code)
			if tt.code == "remote_not_allowed" && apperr.From(err).Params["addr"] != tt.addr {
				t.Fatalf("params %v lack addr", apperr.From(err).Params)
			}
		})
	}
}
