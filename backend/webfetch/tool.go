package webfetch

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpproxy"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/tools"
)

// The settings the reader reads. The proxy is web search's own setting: one proxy for
// everything the web toolset sends.
const (
	SettingAllowedHosts = "webfetch.allowedHosts"
	settingProxy        = "websearch.proxy"
	settingsSection     = "web-search"
)

// Specs are the fetcher's settings, shown on Settings → Web search.
func Specs() []settings.Spec {
	return []settings.Spec{
		// Host names (or addresses) on the user's own network the fetcher may read,
		// separated by spaces or commas; every other private address is refused.
		{Key: SettingAllowedHosts, Type: settings.String, Default: "", MaxLen: 4000, Section: settingsSection},
	}
}

// LinkParser reads pages through the selected search provider, for providers that can
// (an extract or reader API).
type LinkParser interface {
	// ParseLink reads url through the selected provider. handled is false when that
	// provider cannot read pages; Cairn's fetcher reads the page then.
	ParseLink(ctx context.Context, url string) (page Page, handled bool, err error)
}

// Settings is what the reader reads of the settings service.
type Settings interface {
	String(ctx context.Context, key string) string
}

// Reader is parse_link: the selected provider when it reads pages, else Cairn's fetcher
// built from the current settings (allowed private hosts, proxy).
type Reader struct {
	base     Options
	settings Settings
	links    LinkParser
	mu       sync.Mutex
	cached   map[string]*Fetcher // by settings, so connections are reused
}

// NewReader returns a Reader; settings and links may be nil (defaults, no provider).
func NewReader(base Options, s Settings, links LinkParser) *Reader {
	return &Reader{base: base, settings: s, links: links, cached: map[string]*Fetcher{}}
}

// Read reads the page at raw.
func (r *Reader) Read(ctx context.Context, raw string) (Page, error) {
	if r.links != nil {
		if p, handled, err := r.links.ParseLink(ctx, raw); handled {
			return p, err
		}
	}
	f, err := r.fetcher(ctx, raw)
	if err != nil {
		return Page{}, err
	}
	return f.Fetch(ctx, raw)
}

func (r *Reader) setting(ctx context.Context, key string) string {
	if r.settings == nil {
		return ""
	}
	return strings.TrimSpace(r.settings.String(ctx, key))
}

// fetcher is the Fetcher for the current settings: the proxy set in Settings, else the
// system's (HTTP_PROXY, HTTPS_PROXY, NO_PROXY) for this address.
func (r *Reader) fetcher(ctx context.Context, raw string) (*Fetcher, error) {
	hosts := splitHosts(r.setting(ctx, SettingAllowedHosts))
	proxy, err := r.proxyFor(ctx, raw)
	if err != nil {
		return nil, err
	}
	key := strings.Join(hosts, " ")
	o := r.base
	o.AllowHosts = append(append([]string(nil), o.AllowHosts...), hosts...)
	if proxy != nil {
		o.Proxy = proxy
		key += "|" + proxy.String()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.cached[key]; ok {
		return f, nil
	}
	if len(r.cached) > 8 {
		clear(r.cached)
	}
	f := New(o)
	r.cached[key] = f
	return f, nil
}

func (r *Reader) proxyFor(ctx context.Context, raw string) (*url.URL, error) {
	if r.base.Proxy != nil {
		return r.base.Proxy, nil
	}
	if p := r.setting(ctx, settingProxy); p != "" {
		u, err := url.Parse(p)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5" && u.Scheme != "socks5h") {
			return nil, apperr.New(apperr.ParseLinkFailed, "the web search proxy setting %q is not an http, https or socks5 URL", shortURL(p)).
				WithParam("host", shortURL(raw)).WithParam("message", "the proxy in web search settings is not a valid URL").
				WithAction("open-settings", settingsSection)
		}
		return u, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil // Fetch says what is wrong with the address
	}
	return httpproxy.FromEnvironment().ProxyFunc()(u)
}

func splitHosts(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' || r == '\n' || r == '\t' })
}

// fetchInput is the tool's input.
type fetchInput struct {
	URL string `json:"url" jsonschema:"The http or https address of the page to read."`
}

// Card is what the tool card shows of a read page.
type Card struct {
	URL       string `json:"url"`
	Requested string `json:"requested,omitempty"`
	Title     string `json:"title,omitempty"`
	Byline    string `json:"byline,omitempty"`
	Site      string `json:"site,omitempty"` // the site's own name for itself, when the page says it
	Published string `json:"published,omitempty"`
	Bytes     int    `json:"bytes"`
	Chars     int    `json:"chars"`
	Dropped   int    `json:"dropped,omitempty"`
	Rendered  bool   `json:"rendered,omitempty"`
	Provider  string `json:"provider,omitempty"`
	Note      string `json:"note,omitempty"`
	Preview   string `json:"preview"`
}

const previewChars = 600

func cardOf(p Page) Card {
	preview, _, _ := cut(p.Markdown, previewChars)
	return Card{URL: p.URL, Requested: p.Requested, Title: p.Title, Byline: p.Byline, Site: p.SiteName, Published: p.Published,
		Bytes: p.Bytes, Chars: p.Chars, Dropped: p.Dropped, Rendered: p.Rendered, Provider: p.Provider, Note: p.Note, Preview: preview}
}

// ToolName is the tool's wire name; parse_link is the name other clients give it.
const ToolName = "web_fetch"

// Tool is the web_fetch (parse_link) tool: an address in, the page as readable Markdown
// out. The model reads the technical reason of a failure; the card gets the error's code.
func (r *Reader) Tool() tools.Entry {
	return tools.Typed(tools.TypedTool[fetchInput]{
		Name:    ToolName,
		Aliases: []string{"parse_link"},
		Description: "Read a web page (or a PDF) and return its main text as Markdown, with its title, byline and date. " +
			"Only http and https addresses on the public internet; long pages are cut, with a note of how much was dropped.",
		SearchHint:      "fetch url web page read link parse_link pdf markdown",
		ReadOnly:        true,
		ConcurrencySafe: true,
		Cancellable:     true,
		ProgressKind:    "web",
		Timeout:         2 * time.Minute,
		Touches:         func(in fetchInput) tools.Touches { return tools.Touches{URLs: []string{in.URL}} },
		Validate: func(_ context.Context, in fetchInput) error {
			_, err := checkURL(in.URL)
			return err
		},
		Run: func(ctx context.Context, in fetchInput, progress func(tools.Progress)) (tools.Result, error) {
			progress(tools.Progress{Kind: "web", Message: "Reading " + shortURL(in.URL)})
			p, err := r.Read(ctx, in.URL)
			if err != nil {
				return tools.Result{}, err
			}
			display, err := json.Marshal(cardOf(p))
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Content: p.Text(), Display: display}, nil
		},
	})
}
