package llm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

func testModel() []Model { return []Model{{ID: "m", Source: SourceManual}} }

// TestProviderHeadersReachTheProviderAndSecretsStayInTheStore: plain headers are stored and
// shown, a secret one (typed as such, or named like a credential) only in the secret store;
// every chat request carries all of them; saving without a value keeps the stored one, and
// removing the header or the provider removes it.
func TestProviderHeadersReachTheProviderAndSecretsStayInTheStore(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	llm := llmtest.Start(t)
	llm.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	p, err := e.svc.Save(ctx, ProviderInput{Name: "Gateway", BaseURL: llm.URL, Models: testModel(), Headers: []Header{
		{Name: "http-referer", Value: "https://cairn.example"},
		{Name: "X-Org", Value: "org-42", Secret: true},
		{Name: "X-Api-Key", Value: "gw-key-123456"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Header{{Name: "Http-Referer", Value: "https://cairn.example"}, {Name: "X-Org", Secret: true, Set: true}, {Name: "X-Api-Key", Secret: true, Set: true}}
	if len(p.Headers) != 3 || p.Headers[0] != want[0] || p.Headers[1] != want[1] || p.Headers[2] != want[2] || p.Proxy != ProxySystem {
		t.Fatalf("headers %+v proxy %q", p.Headers, p.Proxy)
	}
	var row string
	if err := e.db.QueryRowContext(ctx, "SELECT headers FROM providers WHERE id = ?", p.ID).Scan(&row); err != nil || strings.Contains(row, "org-42") || strings.Contains(row, "gw-key") {
		t.Fatalf("a secret header value is in the database: %s %v", row, err)
	}
	call := func() http.Header {
		t.Helper()
		tg, err := e.svc.Resolve(ctx, p.ID, "m")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tg.Client.Stream(ctx, userReq("m"), Handler{}); err != nil {
			t.Fatal(err)
		}
		reqs := llm.Requests()
		return reqs[len(reqs)-1].Header
	}
	h := call()
	if h.Get("Http-Referer") != "https://cairn.example" || h.Get("X-Org") != "org-42" || h.Get("X-Api-Key") != "gw-key-123456" {
		t.Fatalf("request headers %v", h)
	}

	// Saving the list again without the secret values keeps them; dropping one removes it.
	p, err = e.svc.Save(ctx, ProviderInput{ID: p.ID, Name: "Gateway", BaseURL: llm.URL, Headers: []Header{{Name: "X-Org", Secret: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if h := call(); h.Get("X-Org") != "org-42" || h.Get("X-Api-Key") != "" || h.Get("Http-Referer") != "" {
		t.Fatalf("after the second save: %v", h)
	}
	if _, ok, _ := e.sec.Get(HeaderSecretName(p.ID, "X-Api-Key")); ok {
		t.Fatal("a removed header's secret stayed in the store")
	}
	if err := e.svc.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := e.sec.Get(HeaderSecretName(p.ID, "X-Org")); ok {
		t.Fatal("a deleted provider's header secret stayed in the store")
	}
}

// TestProviderProxy: a provider with a proxy URL sends its requests through it (the test's
// own proxy on loopback answers for the provider, so the provider's name is never
// resolved); "none" goes direct even when another provider uses a proxy.
func TestProviderProxy(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	var mu sync.Mutex
	var seen []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.String())
		mu.Unlock()
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"via proxy\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer proxy.Close()
	direct := llmtest.Start(t)
	direct.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "direct"} })

	via, err := e.svc.Save(ctx, ProviderInput{Name: "Via", BaseURL: "http://provider.invalid/v1", Models: testModel(), Proxy: proxy.URL})
	if err != nil || via.Proxy != proxy.URL {
		t.Fatalf("%+v %v", via, err)
	}
	none, err := e.svc.Save(ctx, ProviderInput{Name: "Direct", BaseURL: direct.URL, Models: testModel(), Proxy: "none"})
	if err != nil || none.Proxy != ProxyNone {
		t.Fatalf("%+v %v", none, err)
	}
	for _, c := range []struct{ id, want string }{{via.ID, "via proxy"}, {none.ID, "direct"}} {
		tg, err := e.svc.Resolve(ctx, c.id, "m")
		if err != nil {
			t.Fatal(err)
		}
		out, err := tg.Client.Stream(ctx, userReq("m"), Handler{})
		if err != nil || !strings.Contains(out.Text, c.want) {
			t.Fatalf("%s: %+v %v", c.want, out, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "POST http://provider.invalid/v1/chat/completions" {
		t.Fatalf("the proxy saw %v", seen)
	}
}

func TestProviderNetworkValidation(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	for _, tc := range []struct {
		name    string
		headers []Header
		proxy   string
	}{
		{"bad name", []Header{{Name: "X Bad", Value: "v"}}, ""},
		{"reserved", []Header{{Name: "host", Value: "evil"}}, ""},
		{"twice", []Header{{Name: "X-A", Value: "1"}, {Name: "x-a", Value: "2"}}, ""},
		{"two lines", []Header{{Name: "X-A", Value: "1\r\nX-Injected: 1"}}, ""},
		{"proxy scheme", nil, "ftp://proxy.example:21"},
		{"proxy without host", nil, "http://"},
		{"proxy path", nil, "http://proxy.example:8080/some/path"},
	} {
		_, err := e.svc.Save(ctx, ProviderInput{Name: "P " + tc.name, BaseURL: "http://127.0.0.1:9/v1", Models: testModel(), Headers: tc.headers, Proxy: tc.proxy})
		if !apperr.Is(err, apperr.ProviderInvalid) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
