package server_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
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

func TestEveryRouteNeedsTheToken(t *testing.T) {
	ts := newTestServer(t, nil)
	routes := []struct {
		method, path string
		api          bool
	}{
		{http.MethodGet, "/api/health", true},
		{http.MethodGet, "/api/events", true},
		{http.MethodPost, "/api/Echo", true},
		{http.MethodPost, "/api/Nope", true},
		{http.MethodGet, "/", false},
		{http.MethodGet, "/index.html", false},
		{http.MethodGet, "/assets/index-abc1.js", false},
		{http.MethodGet, "/settings/providers", false},
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
		{"wrong cookie", []reqOpt{cookie("wrong")}, false},
		{"cookie with another name", []reqOpt{func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "token", Value: testToken}) }}, false},
		{"bearer", []reqOpt{bearer(testToken)}, true},
		{"bearer, lower-case scheme", []reqOpt{header("Authorization", "bearer "+testToken)}, true},
		{"cookie", []reqOpt{cookie(testToken)}, true},
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
				r := ts.do(t, rt.method, rt.path, strings.NewReader("[]"), c.opts...)
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
				if rt.api {
					if e := decodeErr(t, r).Error; e.Code != "unauthorized" {
						t.Fatalf("code %s", e.Code)
					}
					return
				}
				if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
					t.Fatalf("401 page content type %q", ct)
				}
				if strings.Contains(string(r.body), "console.log") || strings.Contains(string(r.body), "id=root") {
					t.Fatalf("401 page leaked content: %s", r.body)
				}
			})
		}
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

func TestQueryTokenSetsCookieAndRedirects(t *testing.T) {
	ts := newTestServer(t, nil)
	tests := []struct {
		name, path string
		location   string
	}{
		{"root", "/?token=" + testToken, "/"},
		{"deep route keeps other query", "/settings/providers?token=" + testToken + "&lang=zh-CN", "/settings/providers?lang=zh-CN"},
		{"trailing slash kept", "/settings/?token=" + testToken, "/settings/"},
		{"no protocol-relative redirect", "//evil.example/x?token=" + testToken, "/evil.example/x"},
		{"dot segments cleaned", "/a/../../b?token=" + testToken, "/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, ts.ts.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.ParseRequestURI(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Path, req.URL.RawPath, req.URL.RawQuery = u.Path, u.RawPath, u.RawQuery
			resp, err := noRedirect().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("status %d, want 303", resp.StatusCode)
			}
			if loc := resp.Header.Get("Location"); loc != tt.location {
				t.Fatalf("Location %q, want %q", loc, tt.location)
			}
			var got *http.Cookie
			for _, c := range resp.Cookies() {
				if c.Name == server.CookieName {
					got = c
				}
			}
			if got == nil {
				t.Fatalf("no %s cookie in %v", server.CookieName, resp.Header["Set-Cookie"])
			}
			if got.Value != testToken || !got.HttpOnly || got.SameSite != http.SameSiteStrictMode || got.Path != "/" {
				t.Fatalf("cookie %+v: want the token, HttpOnly, SameSite=Strict, Path=/", got)
			}
		})
	}
	t.Run("wrong token in the address", func(t *testing.T) {
		r := ts.do(t, http.MethodGet, "/?token=wrong", nil)
		if r.status != http.StatusUnauthorized || len(r.header.Values("Set-Cookie")) != 0 {
			t.Fatalf("status %d, cookies %v", r.status, r.header.Values("Set-Cookie"))
		}
	})
	t.Run("browser flow: open the address, then use the cookie", func(t *testing.T) {
		jar, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		client := &http.Client{Jar: jar}
		resp, err := client.Get(ts.ts.URL + "/?token=" + testToken)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Request.URL.RawQuery != "" {
			t.Fatalf("after redirect: status %d at %s", resp.StatusCode, resp.Request.URL)
		}
		for _, path := range []string{"/api/health", "/assets/index-abc1.js"} {
			resp, err := client.Get(ts.ts.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("%s with the cookie: %d", path, resp.StatusCode)
			}
		}
		resp, err = client.Post(ts.ts.URL+"/api/Echo", "application/json", strings.NewReader(`["c"]`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("call with the cookie: %d", resp.StatusCode)
		}
	})
	t.Run("token in the query does not authorize a call", func(t *testing.T) {
		r := ts.do(t, http.MethodPost, "/api/Echo?token="+testToken, strings.NewReader(`["x"]`))
		if r.status != http.StatusUnauthorized {
			t.Fatalf("status %d", r.status)
		}
	})
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
