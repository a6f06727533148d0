package websearch

import "slices"

// Provider IDs, as the settings store them.
const (
	Tavily    = "tavily"
	SearXNG   = "searxng"
	Brave     = "brave"
	Exa       = "exa"
	Jina      = "jina"
	Serper    = "serper"
	Firecrawl = "firecrawl"
	Bing      = "bing"
	BingNews  = "bing-news"
	BoCha     = "bocha"
	Zhipu     = "zhipu"
	Querit    = "querit"
)

// Info describes a provider for Settings, the CLI and the tool.
type Info struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Secret is the keyring name of its API key; empty for keyless providers.
	Secret string `json:"secret,omitempty"`
	// KeyOptional: a key raises limits but the service answers without one.
	KeyOptional bool `json:"keyOptional,omitempty"`
	// Endpoint is the default base URL; empty when the user must give one (SearXNG).
	Endpoint  string `json:"endpoint"`
	ParseLink bool   `json:"parseLink"`
	new       func(Config) Provider
}

// catalog is every provider, in the order Settings lists them.
func catalog() []Info {
	return []Info{
		{ID: Tavily, Name: "Tavily", Secret: "websearch.tavily", Endpoint: "https://api.tavily.com", ParseLink: true, new: newTavily},
		{ID: SearXNG, Name: "SearXNG", new: newSearXNG},
		{ID: Brave, Name: "Brave Search", Secret: "websearch.brave", Endpoint: "https://api.search.brave.com", new: newBrave},
		{ID: Exa, Name: "Exa", Secret: "websearch.exa", Endpoint: "https://api.exa.ai", ParseLink: true, new: newExa},
		{ID: Jina, Name: "Jina", Secret: "websearch.jina", Endpoint: "https://s.jina.ai", ParseLink: true, new: newJina},
		{ID: Serper, Name: "Serper", Secret: "websearch.serper", Endpoint: "https://google.serper.dev", new: newSerper},
		{ID: Firecrawl, Name: "Firecrawl", Secret: "websearch.firecrawl", Endpoint: "https://api.firecrawl.dev", ParseLink: true, new: newFirecrawl},
		{ID: Bing, Name: "Bing", Endpoint: "https://www.bing.com", new: newBing},
		{ID: BingNews, Name: "Bing News", Endpoint: "https://www.bing.com", new: newBingNews},
		{ID: BoCha, Name: "BoCha", Secret: "websearch.bocha", Endpoint: "https://api.bochaai.com", new: newBoCha},
		{ID: Zhipu, Name: "Zhipu Web Search", Secret: "websearch.zhipu", Endpoint: "https://open.bigmodel.cn/api/paas/v4", new: newZhipu},
		{ID: Querit, Name: "Querit", Secret: "websearch.querit", Endpoint: "https://api.querit.ai", new: newQuerit},
	}
}

// ParseLinkProviders is the one list of providers that read pages themselves: the toolset
// offers parse_link through them (others go to Cairn's own fetcher) and Settings shows the
// capability. A test builds every provider and fails when this list and their
// SupportsParseLink disagree.
var ParseLinkProviders = []string{Tavily, Exa, Jina, Firecrawl}

// Providers lists every provider.
func Providers() []Info {
	out := catalog()
	for i := range out {
		out[i].ParseLink = slices.Contains(ParseLinkProviders, out[i].ID)
	}
	return out
}

// IDs lists the provider IDs in catalog order.
func IDs() []string {
	var out []string
	for _, p := range catalog() {
		out = append(out, p.ID)
	}
	return out
}

// Lookup returns a provider's description.
func Lookup(id string) (Info, bool) {
	for _, p := range Providers() {
		if p.ID == id {
			return p, true
		}
	}
	return Info{}, false
}

// New builds a provider; ok is false for an unknown ID.
func New(id string, cfg Config) (Provider, bool) {
	for _, p := range catalog() {
		if p.ID == id {
			return p.new(cfg), true
		}
	}
	return nil, false
}

// DisplayName is the provider's name for messages (its ID when unknown).
func DisplayName(id string) string {
	for _, p := range catalog() {
		if p.ID == id {
			return p.Name
		}
	}
	return id
}

// SecretName is the keyring name of a provider's key ("" when it takes none).
func SecretName(id string) string {
	for _, p := range catalog() {
		if p.ID == id {
			return p.Secret
		}
	}
	return ""
}

// Secrets are the names of every provider's key, for the capability's declaration.
func Secrets() []string {
	var out []string
	for _, p := range catalog() {
		if p.Secret != "" {
			out = append(out, p.Secret)
		}
	}
	return out
}
