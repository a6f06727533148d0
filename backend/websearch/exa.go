package websearch

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// exa speaks Exa's API: POST /search and POST /contents with the x-api-key header.
type exa struct{ cfg Config }

func newExa(cfg Config) Provider { return &exa{cfg: cfg} }

func (*exa) ID() string              { return Exa }
func (*exa) SupportsParseLink() bool { return true }

type exaResult struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	URL           string `json:"url"`
	PublishedDate string `json:"publishedDate"`
	Author        string `json:"author"`
	Text          string `json:"text"`
	Favicon       string `json:"favicon"`
}

type exaResp struct {
	Results  []exaResult `json:"results"`
	Statuses []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Error  *struct {
			Tag            string `json:"tag"`
			HTTPStatusCode int    `json:"httpStatusCode"`
		} `json:"error"`
	} `json:"statuses"`
}

// since is the start of a freshness window, as Exa's startPublishedDate wants it.
func since(f Freshness, now time.Time) string {
	d := map[Freshness]time.Duration{PastDay: 24 * time.Hour, PastWeek: 7 * 24 * time.Hour,
		PastMonth: 30 * 24 * time.Hour, PastYear: 365 * 24 * time.Hour}[f]
	if d == 0 {
		return ""
	}
	return now.Add(-d).UTC().Format("2006-01-02T15:04:05.000Z")
}

func (e *exa) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	if e.cfg.Key == "" {
		return nil, errKeyRequired(Exa)
	}
	body := map[string]any{"query": query, "numResults": o.count(), "type": "auto",
		"contents": map[string]any{"text": map[string]any{"maxCharacters": 500}}}
	if o.Site != "" {
		body["includeDomains"] = []string{o.Site}
	}
	if s := since(o.Freshness, time.Now()); s != "" {
		body["startPublishedDate"] = s
	}
	var out exaResp
	err := sendJSON(ctx, e.cfg, request{id: Exa, method: http.MethodPost, url: join(e.cfg.base("https://api.exa.ai"), "search"),
		header: map[string]string{"x-api-key": e.cfg.Key}, body: body}, &out)
	if err != nil {
		return nil, err
	}
	res := make([]Result, 0, len(out.Results))
	for _, r := range out.Results {
		res = append(res, Result{Title: r.Title, URL: r.URL, Snippet: strings.TrimSpace(r.Text), Published: r.PublishedDate,
			Favicon: r.Favicon, Provider: Exa})
	}
	return res, nil
}

func (e *exa) ParseLink(ctx context.Context, u string) (Page, error) {
	if e.cfg.Key == "" {
		return Page{}, errKeyRequired(Exa)
	}
	var out exaResp
	err := sendJSON(ctx, e.cfg, request{id: Exa, method: http.MethodPost, url: join(e.cfg.base("https://api.exa.ai"), "contents"),
		header: map[string]string{"x-api-key": e.cfg.Key}, body: map[string]any{"urls": []string{u}, "text": true}}, &out)
	if err != nil {
		return Page{}, err
	}
	for _, r := range out.Results {
		if strings.TrimSpace(r.Text) != "" {
			return Page{URL: firstNonEmpty(r.URL, u), Title: r.Title, Content: r.Text, Byline: r.Author,
				Published: r.PublishedDate, Provider: Exa}, nil
		}
	}
	why := "no results"
	for _, s := range out.Statuses {
		if s.Error != nil {
			why = s.Error.Tag
		}
	}
	return Page{}, parseLinkFailed(Exa, u, "Exa contents API returned "+why)
}
