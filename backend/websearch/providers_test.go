package websearch

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// wireCase is one provider's documented exchange: what its request must look like and
// what the service answers (success and no results).
type wireCase struct {
	id      string
	key     bool
	method  string
	path    string
	auth    func(h http.Header) string // the key as the request carried it
	query   func(r *http.Request, body map[string]any) string
	ok      string
	okType  string
	empty   string
	wantURL string
}

func bearerKey(h http.Header) string { return strings.TrimPrefix(h.Get("Authorization"), "Bearer ") }

func wireCases() []wireCase {

	return []wireCase{
		{id: Tavily, key: true, method: "POST", path: "/search", auth: bearerKey,
			query: func(_ *http.Request, b map[string]any) string { return b["query"].(string) },
			ok:    `{"query":"q","answer":null,"results":[{"title":"Go","url":"https://go.dev/","content":"The Go language","score":0.98,"raw_content":null}],"response_time":0.8}`,
			empty: `{"query":"q","results":[],"response_time":0.5}`, wantURL: "https://go.dev/"},
		{id: SearXNG, method: "GET", path: "/search",
			query: func(r *http.Request, _ map[string]any) string { return r.URL.Query().Get("q") },
			ok:    `{"query":"q","number_of_results":1,"results":[{"url":"https://go.dev/","title":"Go","content":"The Go language","engine":"duckduckgo","engines":["duckduckgo"],"score":1.0,"category":"general","publishedDate":null}],"answers":[],"suggestions":[],"unresponsive_engines":[]}`,
			empty: `{"query":"q","number_of_results":0,"results":[],"answers":[],"suggestions":[],"unresponsive_engines":[]}`, wantURL: "https://go.dev/"},
		{id: Brave, key: true, method: "GET", path: "/res/v1/web/search", auth: func(h http.Header) string { return h.Get("X-Subscription-Token") },
			query: func(r *http.Request, _ map[string]any) string { return r.URL.Query().Get("q") },
			ok:    `{"type":"search","query":{"original":"q"},"web":{"type":"search","results":[{"title":"Go","url":"https://go.dev/","description":"The <strong>Go</strong> language","age":"2 days ago","profile":{"name":"Go"},"meta_url":{"hostname":"go.dev","favicon":"https://imgs.search.brave.com/x.png"}}]}}`,
			empty: `{"type":"search","query":{"original":"q"}}`, wantURL: "https://go.dev/"},
		{id: Exa, key: true, method: "POST", path: "/search", auth: func(h http.Header) string { return h.Get("x-api-key") },
			query: func(_ *http.Request, b map[string]any) string { return b["query"].(string) },
			ok:    `{"requestId":"r1","resolvedSearchType":"neural","results":[{"id":"https://go.dev/","title":"Go","url":"https://go.dev/","publishedDate":"2024-01-01T00:00:00.000Z","author":null,"text":"The Go language"}]}`,
			empty: `{"requestId":"r1","results":[]}`, wantURL: "https://go.dev/"},
		{id: Jina, key: true, method: "POST", path: "/", auth: bearerKey,
			query: func(_ *http.Request, b map[string]any) string { return b["q"].(string) },
			ok:    `{"code":200,"status":20000,"data":[{"title":"Go","url":"https://go.dev/","description":"The Go language","content":"","usage":{"tokens":10}}],"meta":{"usage":{"tokens":10}}}`,
			empty: `{"code":200,"status":20000,"data":[]}`, wantURL: "https://go.dev/"},
		{id: Serper, key: true, method: "POST", path: "/search", auth: func(h http.Header) string { return h.Get("X-API-KEY") },
			query: func(_ *http.Request, b map[string]any) string { return b["q"].(string) },
			ok:    `{"searchParameters":{"q":"q","type":"search","engine":"google"},"organic":[{"title":"Go","link":"https://go.dev/","snippet":"The Go language","position":1}],"credits":1}`,
			empty: `{"searchParameters":{"q":"q"},"organic":[],"credits":1}`, wantURL: "https://go.dev/"},
		{id: Firecrawl, key: true, method: "POST", path: "/v2/search", auth: bearerKey,
			query: func(_ *http.Request, b map[string]any) string { return b["query"].(string) },
			ok:    `{"success":true,"data":{"web":[{"url":"https://go.dev/","title":"Go","description":"The Go language","position":1}]}}`,
			empty: `{"success":true,"data":{"web":[]}}`, wantURL: "https://go.dev/"},
		{id: Bing, method: "GET", path: "/search", okType: "text/html; charset=utf-8",
			query: func(r *http.Request, _ map[string]any) string { return r.URL.Query().Get("q") },
			ok: `<html><body><ol id="b_results"><li class="b_algo"><h2><a href="https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly9nby5kZXYv&ntb=1">Go</a></h2>` +
				`<div class="b_caption"><p class="b_lineclamp2">The Go language</p></div></li></ol></body></html>`,
			empty: `<html><body><ol id="b_results"><li class="b_no"><h1>There are no results for q</h1></li></ol></body></html>`, wantURL: "https://go.dev/"},
		{id: BingNews, method: "GET", path: "/news/search", okType: "application/rss+xml; charset=utf-8",
			query: func(r *http.Request, _ map[string]any) string { return r.URL.Query().Get("q") },
			ok: `<?xml version="1.0" encoding="utf-8" ?><rss version="2.0" xmlns:News="https://www.bing.com:443/news/search?q=q&amp;format=rss"><channel><title>q - BingNews</title>` +
				`<item><title>Go</title><link>http://www.bing.com/news/apiclick.aspx?ref=FexRss&amp;aid=&amp;tid=1&amp;url=https%3a%2f%2fgo.dev%2f&amp;c=1&amp;mkt=en-us</link><description>The Go language</description><pubDate>Mon, 01 Dec 2026 10:00:00 GMT</pubDate><News:Source>Go Blog</News:Source></item></channel></rss>`,
			empty: `<?xml version="1.0" encoding="utf-8" ?><rss version="2.0"><channel><title>q - BingNews</title></channel></rss>`, wantURL: "https://go.dev/"},
		{id: BoCha, key: true, method: "POST", path: "/v1/web-search", auth: bearerKey,
			query: func(_ *http.Request, b map[string]any) string { return b["query"].(string) },
			ok:    `{"code":200,"log_id":"l1","msg":null,"data":{"_type":"SearchResponse","queryContext":{"originalQuery":"q"},"webPages":{"webSearchUrl":"https://bochaai.com/search?q=q","totalEstimatedMatches":1,"value":[{"id":"https://api.bochaai.com/v1/#WebPages.0","name":"Go","url":"https://go.dev/","displayUrl":"https://go.dev/","snippet":"The Go language","summary":"The Go programming language","siteName":"go.dev","siteIcon":"https://th.bochaai.com/favicon?domain_url=https://go.dev","datePublished":"2024-07-22T11:58:00+08:00"}],"someResultsRemoved":true}}}`,
			empty: `{"code":200,"log_id":"l1","msg":null,"data":{"_type":"SearchResponse","webPages":{"value":[]}}}`, wantURL: "https://go.dev/"},
		{id: Zhipu, key: true, method: "POST", path: "/web_search", auth: bearerKey,
			query: func(_ *http.Request, b map[string]any) string { return b["search_query"].(string) },
			ok:    `{"id":"w1","created":1700000000,"request_id":"r1","search_intent":[{"query":"q","intent":"SEARCH_ALL","keywords":"q"}],"search_result":[{"title":"Go","content":"The Go language","link":"https://go.dev/","media":"go.dev","icon":"","refer":"ref_1","publish_date":"2024-01-01"}]}`,
			empty: `{"id":"w1","created":1700000000,"search_result":[]}`, wantURL: "https://go.dev/"},
		{id: Querit, key: true, method: "POST", path: "/v1/search", auth: bearerKey,
			query: func(_ *http.Request, b map[string]any) string { return b["query"].(string) },
			ok:    `{"took":"35ms","error_code":200,"error_msg":"","search_id":1234,"query_context":{"query":"q"},"results":{"result":[{"url":"https://go.dev/","title":"Go","snippet":"The Go language","page_age":"2024-01-01","site_name":"go.dev","site_icon":""}]}}`,
			empty: `{"took":"10ms","error_code":200,"error_msg":"","results":{"result":[]}}`, wantURL: "https://go.dev/"},
	}

}

// fake serves one provider's wire: it checks the request (method, path, key, query) and
// answers body.
func fake(t *testing.T, c wireCase, status int, body string, header map[string]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var b map[string]any
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &b); err != nil {
				t.Errorf("%s: request body is not JSON: %s", c.id, raw)
			}
		}
		if r.Method != c.method || r.URL.Path != c.path {
			t.Errorf("%s: request %s %s, want %s %s", c.id, r.Method, r.URL.Path, c.method, c.path)
		}
		if c.auth != nil && c.auth(r.Header) != "test-key-123" {
			t.Errorf("%s: the key did not arrive as the service wants it: %v", c.id, r.Header)
		}
		if got := c.query(r, b); !strings.HasPrefix(got, "golang") {
			t.Errorf("%s: query %q did not arrive", c.id, got)
		}
		ct := c.okType
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func build(t *testing.T, c wireCase, srv *httptest.Server) Provider {
	t.Helper()
	cfg := Config{Endpoint: srv.URL, HTTP: srv.Client()}
	if c.key {
		cfg.Key = "test-key-123"
	}
	p, ok := New(c.id, cfg)
	if !ok {
		t.Fatalf("no provider %s", c.id)
	}
	return p
}

// TestProvidersSpeakTheirWire: every provider sends its documented request and reads its
// documented answer, and an empty answer is an empty list (not an error).
func TestProvidersSpeakTheirWire(t *testing.T) {
	for _, c := range wireCases() {
		t.Run(c.id, func(t *testing.T) {
			res, err := build(t, c, fake(t, c, 200, c.ok, nil)).Search(t.Context(), "golang", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 1 || res[0].URL != c.wantURL || res[0].Title != "Go" || !strings.Contains(res[0].Snippet, "Go") || res[0].Provider != c.id {
				t.Fatalf("results %+v", res)
			}
			res, err = build(t, c, fake(t, c, 200, c.empty, nil)).Search(t.Context(), "golang", Options{})
			if err != nil || len(res) != 0 {
				t.Fatalf("empty answer: %v, %+v", err, res)
			}
		})
	}
}

// TestProviderFailuresAreFailures: a refused key, a rate limit (with Retry-After), a 500 and
// a malformed answer are each their own error, never "no results".
func TestProviderFailuresAreFailures(t *testing.T) {
	type fail struct {
		name   string
		status int
		body   string
		header map[string]string
		code   apperr.Code
	}
	fails := []fail{
		{"bad key", 401, `{"detail":{"error":"Unauthorized: missing or invalid API key."}}`, nil, apperr.SearchKeyInvalid},
		{"rate limited", 429, `{"error":"Too many requests"}`, map[string]string{"Retry-After": "30"}, apperr.SearchRateLimited},
		{"server error", 500, `internal error`, nil, apperr.SearchUnreachable},
		{"malformed", 200, `{"results": [`, nil, apperr.SearchBadResponse},
	}
	for _, c := range wireCases() {
		for _, f := range fails {
			if c.id == SearXNG && f.status == 401 {
				continue // SearXNG has no key; its 403 is TestSearXNGJSONDisabled
			}
			t.Run(c.id+"/"+f.name, func(t *testing.T) {
				body := f.body
				if f.name == "malformed" && (c.id == Bing || c.id == BingNews) {
					body = "<html><body>Please solve this challenge</body></html>"
				}
				_, err := build(t, c, fake(t, c, f.status, body, f.header)).Search(t.Context(), "golang", Options{})
				ae := apperr.From(err)
				if ae == nil || ae.Code != f.code {
					t.Fatalf("error %v, want code %s", err, f.code)
				}
				if ae.Params["provider"] != DisplayName(c.id) || !strings.Contains(ae.Message, DisplayName(c.id)) {
					t.Fatalf("the error does not name the provider: %+v", ae)
				}
				if f.code == apperr.SearchRateLimited && ae.Params["retryAfter"] != 30 {
					t.Fatalf("Retry-After lost: %+v", ae.Params)
				}
			})
		}
	}
}

// TestProviderErrorsInABody: services that report failures inside a 200 answer (BoCha's
// code, Querit's error_code, Firecrawl's success) and Brave's 422 token error.
func TestProviderErrorsInABody(t *testing.T) {
	byID := map[string]wireCase{}
	for _, c := range wireCases() {
		byID[c.id] = c
	}
	cases := []struct {
		id, body string
		status   int
		code     apperr.Code
	}{
		{BoCha, `{"code":401,"msg":"Invalid API KEY","log_id":"x"}`, 200, apperr.SearchKeyInvalid},
		{BoCha, `{"code":429,"msg":"You have reached the request limit","log_id":"x"}`, 200, apperr.SearchRateLimited},
		{Querit, `{"error_code":401,"error_msg":"invalid api key"}`, 200, apperr.SearchKeyInvalid},
		{Firecrawl, `{"success":false,"error":"Insufficient credits"}`, 200, apperr.SearchRejected},
		{Brave, `{"type":"ErrorResponse","error":{"id":"e1","status":422,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid."},"time":1}`, 422, apperr.SearchKeyInvalid},
		{Zhipu, `{"error":{"code":"1002","message":"Authorization Token非法，请确认Authorization Token正确传递。"}}`, 401, apperr.SearchKeyInvalid},
	}
	for _, c := range cases {
		t.Run(c.id+"/"+string(c.code), func(t *testing.T) {
			wc := byID[c.id]
			_, err := build(t, wc, fake(t, wc, c.status, c.body, nil)).Search(t.Context(), "golang", Options{})
			if !apperr.Is(err, c.code) {
				t.Fatalf("error %v, want %s", err, c.code)
			}
		})
	}
}

// TestZhipuQueryLimit: a query over the API's 70 characters is cut, not refused.
func TestZhipuQueryLimit(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b map[string]any
		_ = json.NewDecoder(r.Body).Decode(&b)
		got, _ = b["search_query"].(string)
		io.WriteString(w, `{"search_result":[]}`)
	}))
	defer srv.Close()
	p, _ := New(Zhipu, Config{Endpoint: srv.URL, HTTP: srv.Client(), Key: "k"})
	if _, err := p.Search(t.Context(), strings.Repeat("北京", 50), Options{}); err != nil {
		t.Fatal(err)
	}
	if len([]rune(got)) != 70 {
		t.Fatalf("sent %d characters", len([]rune(got)))
	}
}

// TestMissingKeySendsNothing: a provider that needs a key says so before any request;
// Tavily's has its own code.
func TestMissingKeySendsNothing(t *testing.T) {
	for _, c := range wireCases() {
		if !c.key {
			continue
		}
		t.Run(c.id, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
				t.Errorf("%s sent a request without a key", c.id)
			}))
			defer srv.Close()
			p, _ := New(c.id, Config{Endpoint: srv.URL, HTTP: srv.Client()})
			_, err := p.Search(t.Context(), "golang", Options{})
			want := apperr.SearchKeyRequired
			if c.id == Tavily {
				want = apperr.TavilyKeyRequired
			}
			ae := apperr.From(err)
			if ae.Code != want || ae.Action == nil || ae.Action.Target != SettingsSection {
				t.Fatalf("error %+v, want %s opening web search settings", ae, want)
			}
		})
	}
}

// TestSearXNGJSONDisabled: an instance without JSON output (403, or an HTML page) is
// reported with the exact setting to turn on.
func TestSearXNGJSONDisabled(t *testing.T) {
	c := wireCases()[1]
	for _, tc := range []struct {
		status int
		ctype  string
	}{{403, "text/html"}, {200, "text/html; charset=utf-8"}} {
		c.okType = tc.ctype
		_, err := build(t, c, fake(t, c, tc.status, "<html>Forbidden</html>", nil)).Search(t.Context(), "golang", Options{})
		ae := apperr.From(err)
		if ae.Code != apperr.SearxngJSONDisabled || ae.Params["setting"] != "search.formats: [html, json]" ||
			!strings.Contains(ae.Message, "search.formats") || ae.Action.Target != SettingsSection {
			t.Fatalf("HTTP %d %s: %+v", tc.status, tc.ctype, ae)
		}
	}
	p, _ := New(SearXNG, Config{})
	if _, err := p.Search(t.Context(), "golang", Options{}); !apperr.Is(err, apperr.SearchEndpointRequired) {
		t.Fatalf("no instance URL: %v", err)
	}
}

// TestSlowReplyIsCancellable: stopping a search aborts its HTTP request at once.
func TestSlowReplyIsCancellable(t *testing.T) {
	for _, c := range wireCases() {
		t.Run(c.id, func(t *testing.T) {
			gone := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body) // the server notices a closed connection once the body is read
				select {
				case <-r.Context().Done():
					close(gone)
				case <-time.After(10 * time.Second):
					t.Error("the request was not aborted")
				}
			}))
			defer srv.Close()
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(50*time.Millisecond, cancel)
			start := time.Now()
			_, err := build(t, c, srv).Search(ctx, "golang", Options{})
			if !apperr.Is(err, apperr.Canceled) || time.Since(start) > 5*time.Second {
				t.Fatalf("error %v after %s", err, time.Since(start))
			}
			select {
			case <-gone:
			case <-time.After(5 * time.Second):
				t.Fatal("the server never saw the request end")
			}
		})
	}
}
