package websearch

import (
	"context"
	"net/http"
)

// serper speaks Serper's Google search API: POST /search with the X-API-KEY header.
type serper struct {
	noParseLink
	cfg Config
}

func newSerper(cfg Config) Provider { return &serper{noParseLink{Serper}, cfg} }

func (*serper) ID() string { return Serper }

type serperResp struct {
	Organic []struct {
		Title   string `json:"title"`
		Link    string `json:"link"`
		Snippet string `json:"snippet"`
		Date    string `json:"date"`
	} `json:"organic"`
}

var serperTBS = map[Freshness]string{PastDay: "qdr:d", PastWeek: "qdr:w", PastMonth: "qdr:m", PastYear: "qdr:y"}

func (s *serper) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	if s.cfg.Key == "" {
		return nil, errKeyRequired(Serper)
	}
	body := map[string]any{"q": siteQuery(query, o.Site), "num": o.count()}
	if t := serperTBS[o.Freshness]; t != "" {
		body["tbs"] = t
	}
	var out serperResp
	err := sendJSON(ctx, s.cfg, request{id: Serper, method: http.MethodPost, url: join(s.cfg.base("https://google.serper.dev"), "search"),
		header: map[string]string{"X-API-KEY": s.cfg.Key}, body: body}, &out)
	if err != nil {
		return nil, err
	}
	res := make([]Result, 0, len(out.Organic))
	for _, r := range out.Organic {
		res = append(res, Result{Title: r.Title, URL: r.Link, Snippet: r.Snippet, Published: r.Date, Provider: Serper})
	}
	return res, nil
}
