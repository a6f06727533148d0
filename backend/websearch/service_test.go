package websearch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/store"
)

// fakeSettings answers the web search settings from a map, the specs' defaults elsewhere.
type fakeSettings struct {
	mu sync.Mutex
	v  map[string]any
}

func (f *fakeSettings) Get(_ context.Context, key string) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if v, ok := f.v[key]; ok {
		return v, nil
	}
	for _, sp := range Specs() {
		if sp.Key == key {
			return sp.Default, nil
		}
	}
	return nil, fmt.Errorf("unknown setting %s", key)
}

func (f *fakeSettings) String(ctx context.Context, key string) string {
	v, _ := f.Get(ctx, key)
	s, _ := v.(string)
	return s
}

func (f *fakeSettings) Duration(ctx context.Context, key string) time.Duration {
	d, _ := time.ParseDuration(f.String(ctx, key))
	return d
}

type fakeSecrets map[string]string

func (f fakeSecrets) Get(name string) (string, bool, error) { v, ok := f[name]; return v, ok, nil }

// searchServer answers Serper's or Brave's wire with the given URLs and counts requests.
type searchServer struct {
	*httptest.Server
	hits atomic.Int32
}

func serve(t testing.TB, id string, urls ...string) *searchServer {
	t.Helper()
	s := &searchServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		var items []string
		for _, u := range urls {
			if id == Brave {
				items = append(items, fmt.Sprintf(`{"title":"T %s","url":%q,"description":"from brave"}`, u, u))
			} else {
				items = append(items, fmt.Sprintf(`{"title":"T %s","link":%q,"snippet":"from serper"}`, u, u))
			}
		}
		if id == Brave {
			fmt.Fprintf(w, `{"type":"search","web":{"results":[%s]}}`, strings.Join(items, ","))
		} else {
			fmt.Fprintf(w, `{"organic":[%s]}`, strings.Join(items, ","))
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func newTestService(t *testing.T, set map[string]any, cache *Cache) *Service {
	t.Helper()
	return NewService(Deps{Settings: &fakeSettings{v: set}, Cache: cache, HTTP: &http.Client{},
		Secrets: fakeSecrets{"websearch.serper": "sk-serper", "websearch.brave": "sk-brave"}})
}

// TestFallbackChain: the chosen provider fails (no Tavily key), the next one answers, and
// the answer says both.
func TestFallbackChain(t *testing.T) {
	brave := serve(t, Brave, "https://go.dev/")
	svc := newTestService(t, map[string]any{SettingProvider: Tavily, SettingFallback: "nonsense, brave",
		EndpointSetting(Brave): brave.URL}, nil)
	ans, err := svc.Search(t.Context(), Request{Query: "golang"})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Provider != Brave || len(ans.Results) != 1 || len(ans.Failures) != 1 ||
		ans.Failures[0].Provider != Tavily || ans.Failures[0].Error.Code != apperr.TavilyKeyRequired {
		t.Fatalf("answer %+v", ans)
	}
	if text := FormatAnswer(ans); !strings.Contains(text, "Tavily failed") || !strings.Contains(text, "Results from Brave Search") {
		t.Fatal(text)
	}
}

// TestEveryProviderFailed: the error is the first provider's, naming every failure.
func TestEveryProviderFailed(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer down.Close()
	svc := newTestService(t, map[string]any{SettingProvider: Tavily, SettingFallback: "brave",
		EndpointSetting(Brave): down.URL}, nil)
	_, err := svc.Search(t.Context(), Request{Query: "golang"})
	ae := apperr.From(err)
	if ae.Code != apperr.TavilyKeyRequired || !strings.Contains(ae.Message, "every provider failed") ||
		!strings.Contains(ae.Message, "Brave Search: the service failed (HTTP 503") {
		t.Fatalf("%+v", ae)
	}
}

// TestAskAllMerges: with "ask several at once" the chain is asked in parallel, results are
// de-duplicated by normalized URL and ordered by fused rank.
func TestAskAllMerges(t *testing.T) {
	serper := serve(t, Serper, "https://a.example/", "https://www.b.example/x/?utm_source=s", "https://c.example/")
	brave := serve(t, Brave, "http://b.example/x", "https://d.example/")
	svc := newTestService(t, map[string]any{SettingProvider: Serper, SettingFallback: "brave", SettingAskAll: true,
		EndpointSetting(Serper): serper.URL, EndpointSetting(Brave): brave.URL}, nil)
	ans, err := svc.Search(t.Context(), Request{Query: "golang"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range ans.Results {
		got = append(got, NormalizeURL(r.URL)+"@"+r.Provider)
	}
	want := []string{"b.example/x@serper+brave", "a.example@serper", "d.example@brave", "c.example@serper"}
	if ans.Provider != "serper+brave" || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("provider %s, results %v, want %v", ans.Provider, got, want)
	}
}

// TestCacheByNormalizedQuery: a repeated search (any spacing, case or Unicode form) is
// answered from SQLite; other options or an expired entry ask again.
func TestCacheByNormalizedQuery(t *testing.T) {
	db, err := store.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cache := NewCache(db)
	serper := serve(t, Serper, "https://go.dev/")
	svc := newTestService(t, map[string]any{SettingProvider: Serper, EndpointSetting(Serper): serper.URL}, cache)
	for _, q := range []string{"Café  golang", " café GOLANG ", "cafe\u0301 golang"} {
		ans, err := svc.Search(t.Context(), Request{Query: q})
		if err != nil || len(ans.Results) != 1 {
			t.Fatal(ans, err)
		}
	}
	if n := serper.hits.Load(); n != 1 {
		t.Fatalf("%d requests for one normalized query", n)
	}
	if _, err := svc.Search(t.Context(), Request{Query: "café golang", Options: Options{Freshness: PastDay}}); err != nil {
		t.Fatal(err)
	}
	if n := serper.hits.Load(); n != 2 {
		t.Fatalf("other options came from the cache (%d requests)", n)
	}
	cache.now = func() time.Time { return time.Now().Add(time.Hour) }
	ans, _ := svc.Search(t.Context(), Request{Query: "café golang"})
	if n := serper.hits.Load(); n != 3 || ans.Cached {
		t.Fatalf("an expired entry was used (%d requests, cached %v)", n, ans.Cached)
	}
}

// TestIdenticalSearchesShareOneRequest: concurrent identical searches send one request;
// leaving early does not stop it for the others, and when every caller left the request
// is aborted.
func TestIdenticalSearchesShareOneRequest(t *testing.T) {
	var hits atomic.Int32
	release, aborted := make(chan struct{}), make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.Copy(io.Discard, r.Body)
		select {
		case <-release:
			io.WriteString(w, `{"organic":[{"title":"Go","link":"https://go.dev/","snippet":"s"}]}`)
		case <-r.Context().Done():
			aborted <- struct{}{}
		}
	}))
	defer srv.Close()
	svc := newTestService(t, map[string]any{SettingProvider: Serper, EndpointSetting(Serper): srv.URL}, nil)
	early, cancelEarly := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range 5 {
		ctx := t.Context()
		if i == 0 {
			ctx = early
		}
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = svc.Search(ctx, Request{Query: "golang"}) }()
	}
	waitFor(t, func() bool { return hits.Load() == 1 && waiters(svc) == 5 })
	cancelEarly()
	waitFor(t, func() bool { return waiters(svc) == 4 })
	close(release)
	wg.Wait()
	if hits.Load() != 1 || !apperr.Is(errs[0], apperr.Canceled) || errs[1] != nil || errs[4] != nil {
		t.Fatalf("%d requests, errors %v", hits.Load(), errs)
	}

	release = make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { _, err := svc.Search(ctx, Request{Query: "golang stop"}); done <- err }()
	waitFor(t, func() bool { return hits.Load() == 2 })
	cancel()
	if err := <-done; !apperr.Is(err, apperr.Canceled) {
		t.Fatal(err)
	}
	select {
	case <-aborted:
	case <-time.After(5 * time.Second):
		t.Fatal("the request went on after every caller left")
	}
}

func waiters(s *Service) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, f := range s.flights {
		n += f.waiters
	}
	return n
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTimeoutIsUnreachable: a provider slower than the timeout setting failed, it did not
// find nothing.
func TestTimeoutIsUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	defer srv.Close()
	svc := newTestService(t, map[string]any{SettingProvider: Serper, EndpointSetting(Serper): srv.URL, SettingTimeout: "1s"}, nil)
	_, err := svc.Search(t.Context(), Request{Query: "golang"})
	if !apperr.Is(err, apperr.SearchUnreachable) {
		t.Fatal(err)
	}
}

// TestProxySetting: with a proxy set, requests go through it; a bad one is a clear error.
func TestProxySetting(t *testing.T) {
	var via atomic.Value
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		via.Store(r.URL.String()) // a proxy sees the absolute URL
		io.WriteString(w, `{"organic":[]}`)
	}))
	defer proxy.Close()
	set := map[string]any{SettingProvider: Serper, EndpointSetting(Serper): "http://serper.test", SettingProxy: proxy.URL}
	svc := NewService(Deps{Settings: &fakeSettings{v: set}, Secrets: fakeSecrets{"websearch.serper": "k"}})
	ans, err := svc.Search(t.Context(), Request{Query: "golang"})
	if err != nil || len(ans.Results) != 0 {
		t.Fatal(ans, err)
	}
	if got, _ := via.Load().(string); got != "http://serper.test/search" {
		t.Fatalf("the proxy saw %q", got)
	}
	set[SettingProxy] = "ftp://nope"
	if _, err := svc.Search(t.Context(), Request{Query: "golang 2"}); !apperr.Is(err, apperr.SearchProxyInvalid) {
		t.Fatal(err)
	}
}

// TestUnknownAndExplicitProvider: an unknown chosen provider is an error naming it; an
// explicit provider is asked alone.
func TestUnknownAndExplicitProvider(t *testing.T) {
	svc := newTestService(t, map[string]any{SettingProvider: "altavista"}, nil)
	if _, err := svc.Search(t.Context(), Request{Query: "golang"}); !apperr.Is(err, apperr.SearchProviderUnknown) {
		t.Fatal(err)
	}
	if _, err := svc.Search(t.Context(), Request{Query: "golang", Provider: "nope"}); !apperr.Is(err, apperr.SearchProviderUnknown) {
		t.Fatal(err)
	}
	brave := serve(t, Brave, "https://go.dev/")
	svc = newTestService(t, map[string]any{SettingProvider: Tavily, SettingFallback: "serper", EndpointSetting(Brave): brave.URL}, nil)
	ans, err := svc.Search(t.Context(), Request{Query: "golang", Provider: Brave})
	if err != nil || ans.Provider != Brave || len(ans.Failures) != 0 {
		t.Fatal(ans, err)
	}
	if _, err := svc.Search(t.Context(), Request{Query: "  "}); !apperr.Is(err, apperr.InvalidArgument) {
		t.Fatal(err)
	}
}

// TestLinkParserFollowsTheChosenProvider: parse_link goes through the chosen provider only
// when it reads pages itself.
func TestLinkParserFollowsTheChosenProvider(t *testing.T) {
	for id, want := range map[string]bool{Tavily: true, Exa: true, Jina: true, Firecrawl: true, Bing: false, Brave: false, SearXNG: false} {
		svc := newTestService(t, map[string]any{SettingProvider: id}, nil)
		lp, ok := svc.LinkParser(t.Context())
		if ok != want || (ok && lp.ID() != id) {
			t.Errorf("%s: LinkParser %v %v", id, lp, ok)
		}
	}
	svc := newTestService(t, map[string]any{SettingProvider: Exa, EndpointSetting(Exa): "not a url"}, nil)
	lp, ok := svc.LinkParser(t.Context())
	if !ok {
		t.Fatal("a broken reader is still the reader")
	}
	if _, err := lp.ParseLink(t.Context(), "https://go.dev/"); !apperr.Is(err, apperr.SearchEndpointInvalid) {
		t.Fatal(err)
	}
}
