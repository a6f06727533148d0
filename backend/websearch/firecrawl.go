package websearch

import (
	"context"
	"net/http"
	"strings"
)

// firecrawl speaks Firecrawl's v2 API: POST /v2/search and POST /v2/scrape with a bearer
// key; both answer {"success": …, "data": …} and {"success": false, "error": …} on failure.
type firecrawl struct{ cfg Config }

func newFirecrawl(cfg Config) Provider { return &firecrawl{cfg: cfg} }

func (*firecrawl) ID() string              { return Firecrawl }
func (*firecrawl) SupportsParseLink() bool { return true }

type firecrawlSearchResp struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Data    struct {
		Web []struct {
			URL         string `json:"url"`
			Title       string `json:"title"`
			Description string `json:"description"`
		} `json:"web"`
	} `json:"data"`
}

func (f *firecrawl) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	if f.cfg.Key == "" {
		return nil, errKeyRequired(Firecrawl)
	}
	body := map[string]any{"query": siteQuery(query, o.Site), "limit": o.count(), "sources": []string{"web"}}
	if t := serperTBS[o.Freshness]; t != "" { // Firecrawl takes Google's tbs values
		body["tbs"] = t
	}
	var out firecrawlSearchResp
	err := sendJSON(ctx, f.cfg, request{id: Firecrawl, method: http.MethodPost, url: join(f.cfg.base("https://api.firecrawl.dev"), "v2/search"),
		header: bearer(f.cfg.Key), body: body}, &out)
	if err != nil {
		return nil, err
	}
	if !out.Success {
		return nil, errRefused(Firecrawl, out.Error)
	}
	res := make([]Result, 0, len(out.Data.Web))
	for _, r := range out.Data.Web {
		res = append(res, Result{Title: r.Title, URL: r.URL, Snippet: r.Description, Provider: Firecrawl})
	}
	return res, nil
}

type firecrawlScrapeResp struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Data    struct {
		Markdown string `json:"markdown"`
		Metadata struct {
			Title         string `json:"title"`
			SourceURL     string `json:"sourceURL"`
			URL           string `json:"url"`
			Author        string `json:"author"`
			PublishedTime string `json:"publishedTime"`
		} `json:"metadata"`
	} `json:"data"`
}

func (f *firecrawl) ParseLink(ctx context.Context, u string) (Page, error) {
	if f.cfg.Key == "" {
		return Page{}, errKeyRequired(Firecrawl)
	}
	var out firecrawlScrapeResp
	err := sendJSON(ctx, f.cfg, request{id: Firecrawl, method: http.MethodPost, url: join(f.cfg.base("https://api.firecrawl.dev"), "v2/scrape"),
		header: bearer(f.cfg.Key), body: map[string]any{"url": u, "formats": []string{"markdown"}, "onlyMainContent": true}}, &out)
	if err != nil {
		return Page{}, err
	}
	if !out.Success || strings.TrimSpace(out.Data.Markdown) == "" {
		return Page{}, parseLinkFailed(Firecrawl, u, "Firecrawl scrape API returned "+firstNonEmpty(out.Error, "no content"))
	}
	m := out.Data.Metadata
	return Page{URL: firstNonEmpty(m.URL, m.SourceURL, u), Title: m.Title, Content: out.Data.Markdown, Byline: m.Author,
		Published: m.PublishedTime, Provider: Firecrawl}, nil
}
