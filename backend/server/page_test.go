package server_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cairn-app/cairn/backend/server"
)

// settingsApp is a facade with the methods index.html cares about, and one it must not
// call for the page (it holds a secret).
type settingsApp struct {
	language      string
	prompt        string
	fail          bool // every page call fails
	failProviders bool // only ListProviders fails
}

type settingsSnapshot struct {
	Seq    uint64         `json:"seq"`
	Values map[string]any `json:"values"`
}

func (a *settingsApp) GetSettings() (settingsSnapshot, error) {
	if a.fail {
		return settingsSnapshot{}, errors.New("database locked")
	}
	return settingsSnapshot{Seq: 7, Values: map[string]any{"general.language": a.language, "chat.defaultSystemPrompt": a.prompt}}, nil
}

type providersSnapshot struct {
	Seq       uint64 `json:"seq"`
	Providers []struct {
		ID       string `json:"id"`
		KeyLast4 string `json:"keyLast4"`
	} `json:"providers"`
}

// ListProviders answers as llm.Service does: a key's last four characters, never the key.
func (a *settingsApp) ListProviders() (providersSnapshot, error) {
	if a.fail || a.failProviders {
		return providersSnapshot{}, errors.New("keyring locked")
	}
	var s providersSnapshot
	err := json.Unmarshal([]byte(`{"seq":7,"providers":[{"id":"openai","keyLast4":"…WXYZ"}]}`), &s)
	return s, err
}

// ListSessions answers with the query it was given, so the page shows which call it carries.
func (a *settingsApp) ListSessions(query string) (map[string]string, error) {
	return map[string]string{"query": query}, nil
}

func (*settingsApp) ListToolsets() []map[string]string {
	return []map[string]string{{"name": "web", "icon": "globe"}}
}

func (*settingsApp) RevealSecret() (string, error) { return "sk-live-never-in-the-page", nil }

func pageAssets() fstest.MapFS {
	return fstest.MapFS{
		"index.html":         {Data: []byte("<!doctype html><html><head><title>Cairn</title></head><body><div id=root></div></body></html>")},
		"locales/en.json":    {Data: []byte(`{"common":{"hello":"Hello"},"chat":{"trap":"</script><script>alert(1)</script>"}}`)},
		"locales/zh-CN.json": {Data: []byte(`{"common":{"hello":"你好"},"chat":{}}`)},
	}
}

// pageData is the block as the frontend reads it (frontend/src/api/page.ts).
type pageData struct {
	Calls  map[string]json.RawMessage `json:"calls"`
	Locale *struct {
		Lng     string                       `json:"lng"`
		Strings map[string]map[string]string `json:"strings"`
	} `json:"locale"`
}

var pageBlock = regexp.MustCompile(`(?s)<script type="application/json" id="cairn-page-data">(.*?)</script>`)

func readPageData(t *testing.T, body []byte) (pageData, string) {
	t.Helper()
	m := pageBlock.FindSubmatch(body)
	if m == nil {
		t.Fatalf("no page data in %q", body)
	}
	var d pageData
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatalf("page data is not JSON: %v\n%s", err, m[1])
	}
	return d, string(m[1])
}

func TestPageCarriesSettingsAndTheWindowsLocale(t *testing.T) {
	tests := []struct {
		name, setting, acceptLanguage, path, want string
	}{
		{"the setting wins over the browser", "zh-CN", "en-US,en;q=0.9", "/", "zh-CN"},
		{"system: the browser's first language we ship", "system", "zh-TW,en;q=0.5", "/", "zh-CN"},
		{"system: by quality, not by order", "system", "en;q=0.5, zh-CN;q=0.9", "/", "zh-CN"},
		{"system: a language we lack falls through", "system", "fr-FR, de;q=0.9, en;q=0.8", "/", "en"},
		{"system: none we ship, so English", "system", "fr", "/", "en"},
		{"system: no header", "system", "", "/", "en"},
		{"a setting naming no locale file", "tlh", "zh-CN", "/", "zh-CN"},
		{"index.html by name", "en", "", "/index.html", "en"},
		{"a client route", "zh-CN", "", "/settings/general", "zh-CN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, func(c *server.Config) {
				c.Bound = &settingsApp{language: tt.setting}
				c.Assets = pageAssets()
			})
			opts := []reqOpt{bearer(testToken), header("Accept", "text/html")}
			if tt.acceptLanguage != "" {
				opts = append(opts, header("Accept-Language", tt.acceptLanguage))
			}
			r := ts.do(t, http.MethodGet, tt.path, nil, opts...)
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if got := r.header.Get("Cache-Control"); got != "no-store" {
				t.Fatalf("Cache-Control %q, want no-store (the page holds this moment's settings)", got)
			}
			if got := r.header.Get("Content-Type"); got != "text/html; charset=utf-8" {
				t.Fatalf("Content-Type %q", got)
			}
			if r.header.Get("Content-Security-Policy") == "" || r.header.Get("Cross-Origin-Opener-Policy") != "same-origin" {
				t.Fatalf("security headers missing: %v", r.header)
			}
			body := string(r.body)
			if !strings.HasPrefix(body, "<!doctype html>") || !strings.HasSuffix(body, "</script>\n</body></html>") {
				t.Fatalf("the block is not just before </body>: %q", body)
			}
			d, _ := readPageData(t, r.body)
			// A tab loads the providers once its event stream said hello: not from the page.
			if len(d.Calls) != 1 || d.Calls["GetSettings"] == nil {
				t.Fatalf("calls %v, want only GetSettings", d.Calls)
			}
			var snap settingsSnapshot
			if err := json.Unmarshal(d.Calls["GetSettings"], &snap); err != nil || snap.Seq != 7 || snap.Values["general.language"] != tt.setting {
				t.Fatalf("GetSettings %s (%v)", d.Calls["GetSettings"], err)
			}
			if d.Locale == nil || d.Locale.Lng != tt.want {
				t.Fatalf("locale %+v, want %s", d.Locale, tt.want)
			}
			wantHello := map[string]string{"en": "Hello", "zh-CN": "你好"}[tt.want]
			if got := d.Locale.Strings["common"]["hello"]; got != wantHello {
				t.Fatalf("strings: common.hello %q, want %q", got, wantHello)
			}
			if strings.Contains(body, "sk-live") {
				t.Fatal("a method outside the page calls was called into the page")
			}
		})
	}
}

func TestPageDataCannotEndItsScriptElement(t *testing.T) {
	ts := newTestServer(t, func(c *server.Config) {
		c.Bound = &settingsApp{language: "en", prompt: "</SCRIPT><img src=x onerror=alert(1)> & <!--"}
		c.Assets = pageAssets()
	})
	r := ts.do(t, http.MethodGet, "/", nil, bearer(testToken))
	d, raw := readPageData(t, r.body)
	for _, bad := range []string{"<", ">", "&"} {
		if strings.Contains(raw, bad) {
			t.Fatalf("the block holds %q unescaped: %s", bad, raw)
		}
	}
	if got := d.Locale.Strings["chat"]["trap"]; got != "</script><script>alert(1)</script>" {
		t.Fatalf("escaped text does not decode back: %q", got)
	}
	var snap settingsSnapshot
	if err := json.Unmarshal(d.Calls["GetSettings"], &snap); err != nil || snap.Values["chat.defaultSystemPrompt"] != "</SCRIPT><img src=x onerror=alert(1)> & <!--" {
		t.Fatalf("prompt does not decode back: %v %v", snap.Values, err)
	}
	if n := strings.Count(strings.ToLower(string(r.body)), "</script>"); n != 1 {
		t.Fatalf("%d </script> in the page, want the block's own only", n)
	}
}

func TestPageWithoutSettings(t *testing.T) {
	t.Run("a failing call is left to the page, the locale still comes", func(t *testing.T) {
		ts := newTestServer(t, func(c *server.Config) {
			c.Bound = &settingsApp{fail: true}
			c.Assets = pageAssets()
		})
		r := ts.do(t, http.MethodGet, "/", nil, bearer(testToken), header("Accept-Language", "zh-CN"))
		d, _ := readPageData(t, r.body)
		if len(d.Calls) != 0 {
			t.Fatalf("calls %v, want none", d.Calls)
		}
		if d.Locale == nil || d.Locale.Lng != "zh-CN" {
			t.Fatalf("locale %+v", d.Locale)
		}
	})
	t.Run("one failing call is left out, the others come", func(t *testing.T) {
		ts := newTestServer(t, func(c *server.Config) {
			c.Bound = &settingsApp{language: "en", failProviders: true}
			c.Assets = pageAssets()
			c.PageCalls = server.DesktopPageCalls()
		})
		r := ts.do(t, http.MethodGet, "/", nil, bearer(testToken))
		d, _ := readPageData(t, r.body)
		if _, ok := d.Calls["ListProviders"]; ok || d.Calls["GetSettings"] == nil || len(d.Calls) != len(server.DesktopPageCalls())-1 {
			t.Fatalf("calls %v, want all but ListProviders", d.Calls)
		}
	})
	t.Run("nothing to carry: the file as built", func(t *testing.T) {
		ts := newTestServer(t, nil) // fakeApp has no GetSettings; testAssets no locales
		r := ts.do(t, http.MethodGet, "/", nil, bearer(testToken))
		if r.status != http.StatusOK || r.header.Get("Cache-Control") != "no-cache" || strings.Contains(string(r.body), "cairn-page-data") {
			t.Fatalf("status %d, Cache-Control %q, body %q", r.status, r.header.Get("Cache-Control"), r.body)
		}
	})
	t.Run("HEAD has the headers and no body", func(t *testing.T) {
		ts := newTestServer(t, func(c *server.Config) {
			c.Bound = &settingsApp{language: "en"}
			c.Assets = pageAssets()
		})
		r := ts.do(t, http.MethodHead, "/", nil, bearer(testToken))
		if r.status != http.StatusOK || len(r.body) != 0 || r.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("status %d, %d bytes, Cache-Control %q", r.status, len(r.body), r.header.Get("Cache-Control"))
		}
	})
	t.Run("without the token: the strings, no call's answer", func(t *testing.T) {
		ts := newTestServer(t, func(c *server.Config) {
			c.Bound = &settingsApp{language: "zh-CN"}
			c.Assets = pageAssets()
		})
		r := ts.do(t, http.MethodGet, "/", nil, header("Accept-Language", "en"))
		d, _ := readPageData(t, r.body)
		if r.status != http.StatusOK || len(d.Calls) != 0 {
			t.Fatalf("status %d, calls %v", r.status, d.Calls)
		}
		// The language comes from the browser alone: the setting is data.
		if d.Locale == nil || d.Locale.Lng != "en" {
			t.Fatalf("locale %+v", d.Locale)
		}
	})
}

// TestPageMiddleware: the desktop window's asset server gets the same index.html as
// `serve` (snapshots and strings, never a secret) with the providers' snapshot too, and
// everything else from next.
func TestPageMiddleware(t *testing.T) {
	mw, err := server.PageMiddleware(&settingsApp{language: "zh-CN"}, pageAssets(), nil, server.DesktopPageCalls())
	if err != nil {
		t.Fatal(err)
	}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("next " + r.URL.Path))
	})
	h := mw(next)
	for _, path := range []string{"/", "/index.html"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		body := rec.Body.Bytes()
		assertStrictCSP(t, rec.Header())
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || rec.Header().Get("Cache-Control") != "no-store" {
			t.Fatalf("%s: %d %v", path, rec.Code, rec.Header())
		}
		pd, _ := readPageData(t, body)
		if pd.Locale == nil || pd.Locale.Lng != "zh-CN" || pd.Locale.Strings["common"]["hello"] != "你好" {
			t.Fatalf("%s: locale %+v", path, pd.Locale)
		}
		var provs providersSnapshot
		if err := json.Unmarshal(pd.Calls["ListProviders"], &provs); err != nil || len(provs.Providers) != 1 || provs.Providers[0].KeyLast4 != "…WXYZ" {
			t.Fatalf("%s: ListProviders %s (%v), want the providers with their key's last four", path, pd.Calls["ListProviders"], err)
		}
		if _, ok := pd.Calls["GetSettings"]; !ok || strings.Contains(string(body), "sk-live") {
			t.Fatalf("%s: calls %v", path, pd.Calls)
		}
	}
	for _, tt := range []struct{ method, path string }{{"GET", "/assets/index.js"}, {"POST", "/"}, {"GET", "/wails/runtime.js"}} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		if rec.Body.String() != "next "+tt.path {
			t.Fatalf("%s %s: %q, want next's answer", tt.method, tt.path, rec.Body.String())
		}
		// The files Wails serves itself carry the policy too.
		assertStrictCSP(t, rec.Header())
	}
}

// TestPageCallsWithArguments: a page call names its arguments as a JSON array after the
// method (the key the frontend looks it up by); calls whose arguments do not fit the method
// are left out, and the page still comes.
func TestPageCallsWithArguments(t *testing.T) {
	ts := newTestServer(t, func(c *server.Config) {
		c.Bound = &settingsApp{language: "en"}
		c.Assets = pageAssets()
		c.PageCalls = []string{"GetSettings", `ListSessions[""]`, `ListSessions["a b"]`, `ListSessions[1]`, "ListSessions", `GetSettings["x"]`}
	})
	r := ts.do(t, http.MethodGet, "/", nil, bearer(testToken))
	d, _ := readPageData(t, r.body)
	want := map[string]string{`ListSessions[""]`: `{"query":""}`, `ListSessions["a b"]`: `{"query":"a b"}`}
	for key, body := range want {
		if string(d.Calls[key]) != body {
			t.Errorf("%s = %s, want %s", key, d.Calls[key], body)
		}
	}
	if len(d.Calls) != 3 || d.Calls["GetSettings"] == nil {
		t.Fatalf("calls %v, want GetSettings and the two ListSessions that fit", d.Calls)
	}
	if got := server.DesktopPageCalls(); !slices.Contains(got, `ListSessions[""]`) || !slices.Contains(got, "ListProviders") || !slices.Contains(got, "ListToolsets") {
		t.Fatalf("DesktopPageCalls = %v", got)
	}
}

func TestSecurityHeadersMiddleware(t *testing.T) {
	h := server.SecurityHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("next"))
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Body.String() != "next" {
		t.Fatalf("body %q", rec.Body.String())
	}
	assertStrictCSP(t, rec.Header())
}
