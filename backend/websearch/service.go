package websearch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// SettingsReader is the part of the settings service web search reads.
type SettingsReader interface {
	String(ctx context.Context, key string) string
	Duration(ctx context.Context, key string) time.Duration
	Get(ctx context.Context, key string) (any, error)
}

// SecretReader is how web search reads the providers' keys.
type SecretReader interface {
	Get(name string) (value string, ok bool, err error)
}

// Deps are what a Service is built with.
type Deps struct {
	Settings SettingsReader
	Secrets  SecretReader
	// Cache is nil for no cache.
	Cache *Cache
	Log   *slog.Logger
	// HTTP, when set, is the client of every request (tests); nil builds one per proxy
	// setting.
	HTTP *http.Client
	// Language is the window's language for services that take one; nil is none.
	Language func(ctx context.Context) string
}

// Service runs searches as Settings say: the chosen provider, its fallback chain or all
// of them at once, the cache, and one request for identical searches in flight.
type Service struct {
	d       Deps
	mu      sync.Mutex
	flights map[string]*flight
	clients map[string]*http.Client // by proxy setting
}

// NewService builds the service.
func NewService(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d, flights: map[string]*flight{}, clients: map[string]*http.Client{}}
}

// Request is one search.
type Request struct {
	Query   string  `json:"query"`
	Options Options `json:"options"`
	// Provider asks this provider only (no fallback, no merge); empty follows Settings.
	Provider string `json:"provider,omitempty"`
	// NoCache skips the cache (Settings' Test button).
	NoCache bool `json:"noCache,omitempty"`
}

// Failure is a provider that failed while another answered.
type Failure struct {
	Provider string        `json:"provider"`
	Name     string        `json:"name"` // the provider's display name
	Error    *apperr.Error `json:"error"`
}

// Answer is what a search found and who found it.
type Answer struct {
	Query string `json:"query"`
	// Provider is the provider that answered; providers joined by "+" when merged.
	Provider string `json:"provider"`
	// ProviderName is Provider for people ("Brave Search", "Serper + Brave Search").
	ProviderName string   `json:"providerName"`
	Results      []Result `json:"results"`
	Cached       bool     `json:"cached,omitempty"`
	// Failures are the providers tried before (fallback) or beside (ask all) the answer.
	Failures []Failure `json:"failures,omitempty"`
}

// Search runs r. The error, when every provider failed, is the first provider's, its
// message naming every failure.
func (s *Service) Search(ctx context.Context, r Request) (Answer, error) {
	r.Query = strings.TrimSpace(r.Query)
	if r.Query == "" {
		return Answer{}, apperr.New(apperr.InvalidArgument, "the search query is empty")
	}
	chain, askAll, err := s.chain(ctx, r.Provider)
	if err != nil {
		return Answer{}, err
	}
	if askAll && len(chain) > 1 {
		return named(s.searchAll(ctx, r, chain))
	}
	var fails []Failure
	for _, id := range chain {
		res, cached, err := s.one(ctx, id, r)
		if err == nil {
			return named(Answer{Query: r.Query, Provider: id, Results: res, Cached: cached, Failures: fails}, nil)
		}
		if apperr.Is(err, apperr.Canceled) || ctx.Err() != nil {
			return Answer{}, err
		}
		fails = append(fails, Failure{Provider: id, Error: apperr.From(err)})
		s.d.Log.Info("web search provider failed", "provider", id, "err", err)
	}
	return Answer{}, joinFailures(fails)
}

// chain is the providers to ask, in order, and whether to ask them at once.
func (s *Service) chain(ctx context.Context, only string) ([]string, bool, error) {
	if only != "" {
		if _, ok := Lookup(only); !ok {
			return nil, false, unknownProvider(only)
		}
		return []string{only}, false, nil
	}
	first := s.d.Settings.String(ctx, SettingProvider)
	if _, ok := Lookup(first); !ok {
		return nil, false, unknownProvider(first)
	}
	rest, unknown := parseChain(s.d.Settings.String(ctx, SettingFallback))
	if len(unknown) > 0 {
		s.d.Log.Warn("web search fallback names unknown providers", "names", unknown)
	}
	chain := []string{first}
	for _, id := range rest {
		if id != first {
			chain = append(chain, id)
		}
	}
	v, _ := s.d.Settings.Get(ctx, SettingAskAll)
	all, _ := v.(bool)
	return chain, all, nil
}

// named fills in the display names of an answer's providers.
func named(a Answer, err error) (Answer, error) {
	if err != nil {
		return a, err
	}
	var names []string
	for _, id := range strings.Split(a.Provider, "+") {
		names = append(names, DisplayName(id))
	}
	a.ProviderName = strings.Join(names, " + ")
	for i := range a.Failures {
		a.Failures[i].Name = DisplayName(a.Failures[i].Provider)
	}
	return a, nil
}

func unknownProvider(id string) error {
	return apperr.New(apperr.SearchProviderUnknown, "no web search provider is named %q (known: %s)", id, strings.Join(IDs(), ", ")).
		WithParam("name", id)
}

// joinFailures is the error of a search every provider failed: the first one's code and
// parameters, a message that names them all.
func joinFailures(fails []Failure) error {
	first := *fails[0].Error
	if len(fails) > 1 {
		var msgs []string
		for _, f := range fails {
			msgs = append(msgs, f.Error.Message)
		}
		first.Message = "every provider failed: " + strings.Join(msgs, "; then ")
	}
	return &first
}

// searchAll asks every provider of the chain at once and merges what they found.
func (s *Service) searchAll(ctx context.Context, r Request, chain []string) (Answer, error) {
	type out struct {
		res    []Result
		cached bool
		err    error
	}
	outs := make([]out, len(chain))
	var wg sync.WaitGroup
	for i, id := range chain {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, cached, err := s.one(ctx, id, r)
			outs[i] = out{res, cached, err}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return Answer{}, apperr.Wrap(ctx.Err(), apperr.Canceled, "search stopped")
	}
	var lists [][]Result
	var who []string
	var fails []Failure
	cached := true
	for i, o := range outs {
		if o.err != nil {
			fails = append(fails, Failure{Provider: chain[i], Error: apperr.From(o.err)})
			continue
		}
		lists, who, cached = append(lists, o.res), append(who, chain[i]), cached && o.cached
	}
	if len(lists) == 0 {
		return Answer{}, joinFailures(fails)
	}
	merged := Merge(lists, r.Options.count())
	return Answer{Query: r.Query, Provider: strings.Join(who, "+"), Results: merged, Cached: cached, Failures: fails}, nil
}

// one asks one provider, through the cache and the shared flight.
func (s *Service) one(ctx context.Context, id string, r Request) ([]Result, bool, error) {
	endpoint := strings.TrimSpace(s.d.Settings.String(ctx, EndpointSetting(id)))
	key := cacheKey(id, endpoint, r.Query, r.Options)
	ttl := s.d.Settings.Duration(ctx, SettingCacheTTL)
	useCache := s.d.Cache != nil && ttl > 0 && !r.NoCache
	if useCache {
		if res, ok := s.d.Cache.Get(ctx, key); ok {
			return res, true, nil
		}
	}
	res, err := s.shared(ctx, key, func(fctx context.Context) ([]Result, error) {
		p, err := s.provider(fctx, id)
		if err != nil {
			return nil, err
		}
		fctx, cancel := context.WithTimeout(fctx, s.d.Settings.Duration(ctx, SettingTimeout))
		defer cancel()
		return p.Search(fctx, r.Query, r.Options)
	})
	if err != nil {
		return nil, false, err
	}
	if useCache {
		if err := s.d.Cache.Put(ctx, key, id, r.Query, res, ttl); err != nil {
			s.d.Log.Warn("web search cache write failed", "err", err)
		}
	}
	return res, false, nil
}

// provider builds a provider with its key, endpoint and client.
func (s *Service) provider(ctx context.Context, id string) (Provider, error) {
	cfg, err := s.config(ctx, id)
	if err != nil {
		return nil, err
	}
	p, ok := New(id, cfg)
	if !ok {
		return nil, unknownProvider(id)
	}
	return p, nil
}

func (s *Service) config(ctx context.Context, id string) (Config, error) {
	cfg := Config{Endpoint: strings.TrimSpace(s.d.Settings.String(ctx, EndpointSetting(id)))}
	if cfg.Endpoint != "" {
		if u, err := url.Parse(cfg.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Config{}, errBadEndpoint(id, cfg.Endpoint, fmt.Errorf("it needs http:// or https:// and a host"))
		}
	}
	if name := SecretName(id); name != "" && s.d.Secrets != nil {
		v, ok, err := s.d.Secrets.Get(name)
		if err != nil {
			return Config{}, apperr.Wrap(err, apperr.SecretStoreFail, "read the %s key", DisplayName(id))
		}
		if ok {
			cfg.Key = strings.TrimSpace(v)
		}
	}
	client, err := s.client(ctx)
	if err != nil {
		return Config{}, err
	}
	cfg.HTTP = client
	if s.d.Language != nil {
		cfg.Language = s.d.Language(ctx)
	}
	return cfg, nil
}

// client is the HTTP client for the proxy setting: the system's proxy variables when it
// is empty, else that proxy. Clients are kept per setting so connections are reused.
func (s *Service) client(ctx context.Context) (*http.Client, error) {
	if s.d.HTTP != nil {
		return s.d.HTTP, nil
	}
	proxy := strings.TrimSpace(s.d.Settings.String(ctx, SettingProxy))
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[proxy]; ok {
		return c, nil
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = http.ProxyFromEnvironment
	if proxy != "" {
		u, err := url.Parse(proxy)
		if err != nil || u.Host == "" || !map[string]bool{"http": true, "https": true, "socks5": true, "socks5h": true}[u.Scheme] {
			return nil, apperr.New(apperr.SearchProxyInvalid, "the web search proxy %q is not an http, https or socks5 URL", proxy).
				WithParam("proxy", proxy)
		}
		t.Proxy = http.ProxyURL(u)
	}
	c := &http.Client{Transport: t}
	s.clients[proxy] = c
	return c, nil
}

// LinkParser is the chosen provider when it reads pages itself (ParseLinkProviders);
// parse_link then goes through it, and through Cairn's own fetcher otherwise.
// A chosen reader whose configuration is broken (an endpoint or proxy that is not a URL)
// is still the reader: parse_link reports why instead of quietly reading another way.
func (s *Service) LinkParser(ctx context.Context) (LinkParser, bool) {
	id := s.d.Settings.String(ctx, SettingProvider)
	info, ok := Lookup(id)
	if !ok || !info.ParseLink {
		return nil, false
	}
	p, err := s.provider(ctx, id)
	if err != nil {
		return brokenParser{id, err}, true
	}
	return p, true
}

// brokenParser is a reader that cannot be built; every ParseLink says why.
type brokenParser struct {
	id  string
	err error
}

func (b brokenParser) ID() string                                      { return b.id }
func (b brokenParser) ParseLink(context.Context, string) (Page, error) { return Page{}, b.err }

// errCanceled is what a caller that left a shared search gets.
func errCanceled(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return apperr.Wrap(err, apperr.SearchUnreachable, "no answer in time").WithParam("reason", "no answer in time")
	}
	return apperr.Wrap(err, apperr.Canceled, "search stopped")
}

// TestRequest is Settings' Test button: one provider, a few results, past the cache; an
// empty query searches "Cairn".
func TestRequest(provider, query string) Request {
	if strings.TrimSpace(query) == "" {
		query = "Cairn"
	}
	return Request{Query: query, Provider: provider, NoCache: true, Options: Options{Count: 5}}
}
