// Package websearch is Cairn's web search: one Provider interface in front of every search
// service the user can choose (Tavily, SearXNG, Brave, Exa, Jina, Serper, Firecrawl, Bing,
// Bing News, BoCha, Zhipu, Querit), each speaking that service's documented wire format,
// and a Service that picks the configured one, falls back along a chain, can ask several at
// once, caches answers in SQLite and shares identical searches in flight.
//
// A provider's failure is always an error with a reason (a missing or refused key, a rate
// limit, an unreachable or broken service), never an empty result list: "no results" is
// only ever what a provider actually answered.
package websearch

import (
	"context"
	"net/http"
	"strings"
)

// Result is one search hit.
type Result struct {
	Title     string `json:"title"`
	URL       string `json:"url"`
	Snippet   string `json:"snippet,omitempty"`
	Published string `json:"published,omitempty"` // as the provider wrote it
	SiteName  string `json:"siteName,omitempty"`
	Favicon   string `json:"favicon,omitempty"`
	// Provider is the ID of the provider that found it (several when merged).
	Provider string `json:"provider"`
}

// Freshness limits results to recently published pages.
type Freshness string

// The freshness values the tool and the CLI accept; providers map them to their own.
const (
	AnyTime   Freshness = ""
	PastDay   Freshness = "day"
	PastWeek  Freshness = "week"
	PastMonth Freshness = "month"
	PastYear  Freshness = "year"
)

// ParseFreshness accepts the tool's spellings; ok is false for anything else.
func ParseFreshness(s string) (Freshness, bool) {
	switch f := Freshness(strings.ToLower(strings.TrimSpace(s))); f {
	case AnyTime, PastDay, PastWeek, PastMonth, PastYear:
		return f, true
	case "any", "all":
		return AnyTime, true
	}
	return "", false
}

// Options narrow one search.
type Options struct {
	// Count is how many results to ask for; 0 means DefaultCount.
	Count     int       `json:"count,omitempty"`
	Freshness Freshness `json:"freshness,omitempty"`
	// Site limits results to one domain ("go.dev").
	Site string `json:"site,omitempty"`
}

// DefaultCount and MaxCount bound Options.Count.
const (
	DefaultCount = 8
	MaxCount     = 20
)

func (o Options) count() int {
	switch {
	case o.Count <= 0:
		return DefaultCount
	case o.Count > MaxCount:
		return MaxCount
	}
	return o.Count
}

// Page is a web page a provider read for parse_link.
type Page struct {
	URL       string `json:"url"`
	Title     string `json:"title,omitempty"`
	Content   string `json:"content"` // Markdown or plain text, as the provider gives it
	Byline    string `json:"byline,omitempty"`
	Published string `json:"published,omitempty"`
	Provider  string `json:"provider"`
}

// Provider is one search service.
type Provider interface {
	// ID is the provider's stable name ("tavily"), as settings store it.
	ID() string
	// Search runs one query. An empty slice means the service found nothing; every
	// failure is an error (an *apperr.Error with one of the search codes).
	Search(ctx context.Context, query string, opts Options) ([]Result, error)
	// SupportsParseLink says whether ParseLink reads pages through the service itself.
	SupportsParseLink() bool
	// ParseLink reads one page; providers without SupportsParseLink return an error.
	ParseLink(ctx context.Context, url string) (Page, error)
}

// LinkParser is what parse_link needs of a provider that reads pages itself.
type LinkParser interface {
	ID() string
	ParseLink(ctx context.Context, url string) (Page, error)
}

// Config is what a provider is built with.
type Config struct {
	// Endpoint replaces the service's default base URL (a self-hosted instance, a proxy,
	// a test server); empty means the default.
	Endpoint string
	// Key is the API key; empty when the provider needs none or none is set.
	Key string
	// HTTP is the client requests go through (its transport carries the proxy); nil is a
	// client with the system proxy settings.
	HTTP *http.Client
	// Language is the window's language ("en", "zh-CN"), for services that take one.
	Language string
}

func (c Config) base(def string) string {
	if e := strings.TrimSpace(c.Endpoint); e != "" {
		return strings.TrimRight(e, "/")
	}
	return def
}

func (c Config) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}
}

// noParseLink is embedded by providers that cannot read pages themselves.
type noParseLink struct{ id string }

func (noParseLink) SupportsParseLink() bool { return false }

func (n noParseLink) ParseLink(context.Context, string) (Page, error) {
	return Page{}, errNoParseLink(n.id)
}
