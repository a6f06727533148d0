package websearch

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// tavily speaks Tavily's API: POST /search and POST /extract with a bearer key.
type tavily struct{ cfg Config }

func newTavily(cfg Config) Provider { return &tavily{cfg: cfg} }

func (*tavily) ID() string              { return Tavily }
func (*tavily) SupportsParseLink() bool { return true }

type tavilySearchReq struct {
	Query          string   `json:"query"`
	MaxResults     int      `json:"max_results"`
	SearchDepth    string   `json:"search_depth"`
	Topic          string   `json:"topic"`
	TimeRange      string   `json:"time_range,omitempty"`
	IncludeDomains []string `json:"include_domains,omitempty"`
}

type tavilySearchResp struct {
	Results []struct {
		Title         string  `json:"title"`
		URL           string  `json:"url"`
		Content       string  `json:"content"`
		Score         float64 `json:"score"`
		PublishedDate string  `json:"published_date"`
	} `json:"results"`
}

func (t *tavily) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	if t.cfg.Key == "" {
		return nil, errKeyRequired(Tavily)
	}
	body := tavilySearchReq{Query: query, MaxResults: o.count(), SearchDepth: "basic", Topic: "general",
		TimeRange: string(o.Freshness)}
	if o.Site != "" {
		body.IncludeDomains = []string{o.Site}
	}
	var out tavilySearchResp
	err := sendJSON(ctx, t.cfg, request{id: Tavily, method: http.MethodPost,
		url: join(t.cfg.base("https://api.tavily.com"), "search"), header: bearer(t.cfg.Key), body: body}, &out)
	if err != nil {
		return nil, err
	}
	res := make([]Result, 0, len(out.Results))
	for _, r := range out.Results {
		res = append(res, Result{Title: r.Title, URL: r.URL, Snippet: r.Content, Published: r.PublishedDate, Provider: Tavily})
	}
	return res, nil
}

type tavilyExtractResp struct {
	Results []struct {
		URL        string `json:"url"`
		RawContent string `json:"raw_content"`
	} `json:"results"`
	FailedResults []struct {
		URL   string `json:"url"`
		Error string `json:"error"`
	} `json:"failed_results"`
}

func (t *tavily) ParseLink(ctx context.Context, u string) (Page, error) {
	if t.cfg.Key == "" {
		return Page{}, errKeyRequired(Tavily)
	}
	var out tavilyExtractResp
	err := sendJSON(ctx, t.cfg, request{id: Tavily, method: http.MethodPost,
		url: join(t.cfg.base("https://api.tavily.com"), "extract"), header: bearer(t.cfg.Key),
		body: map[string]any{"urls": []string{u}, "format": "markdown"}}, &out)
	if err != nil {
		return Page{}, err
	}
	for _, r := range out.Results {
		if strings.TrimSpace(r.RawContent) != "" {
			return Page{URL: firstNonEmpty(r.URL, u), Content: r.RawContent, Provider: Tavily}, nil
		}
	}
	why := "no results"
	if len(out.FailedResults) > 0 && out.FailedResults[0].Error != "" {
		why = out.FailedResults[0].Error
	}
	return Page{}, parseLinkFailed(Tavily, u, "Tavily extract API returned "+why)
}

// parseLinkFailed is parse_link's error when the provider read nothing: the model gets the
// service's reason, the window the page's host.
func parseLinkFailed(id, u, why string) error {
	host := u
	if pu, err := url.Parse(u); err == nil && pu.Host != "" {
		host = pu.Host
	}
	return apperr.New(apperr.ParseLinkFailed, "%s for %s", why, u).
		WithParam("provider", DisplayName(id)).WithParam("url", u).WithParam("host", host).WithParam("message", short(why))
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
