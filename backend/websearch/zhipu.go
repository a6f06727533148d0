package websearch

import (
	"context"
	"net/http"
)

// zhipu speaks Zhipu's Web Search API: POST /web_search (under /api/paas/v4) with a
// bearer key and the search_std engine.
type zhipu struct {
	noParseLink
	cfg Config
}

func newZhipu(cfg Config) Provider { return &zhipu{noParseLink{Zhipu}, cfg} }

func (*zhipu) ID() string { return Zhipu }

// zhipuMaxQuery is the longest search_query the API takes (its documented maximum length);
// a longer one would be refused, so it is cut.
const zhipuMaxQuery = 70

func firstRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

type zhipuResp struct {
	SearchResult []struct {
		Title       string `json:"title"`
		Content     string `json:"content"`
		Link        string `json:"link"`
		Media       string `json:"media"`
		Icon        string `json:"icon"`
		PublishDate string `json:"publish_date"`
	} `json:"search_result"`
}

func (z *zhipu) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	if z.cfg.Key == "" {
		return nil, errKeyRequired(Zhipu)
	}
	body := map[string]any{"search_query": firstRunes(query, zhipuMaxQuery), "search_engine": "search_std", "search_intent": false,
		"count": o.count(), "search_recency_filter": chineseFreshness[o.Freshness]}
	if o.Site != "" {
		body["search_domain_filter"] = o.Site
	}
	var out zhipuResp
	err := sendJSON(ctx, z.cfg, request{id: Zhipu, method: http.MethodPost,
		url: join(z.cfg.base("https://open.bigmodel.cn/api/paas/v4"), "web_search"), header: bearer(z.cfg.Key), body: body}, &out)
	if err != nil {
		return nil, err
	}
	res := make([]Result, 0, len(out.SearchResult))
	for _, r := range out.SearchResult {
		res = append(res, Result{Title: r.Title, URL: r.Link, Snippet: r.Content, Published: r.PublishDate,
			SiteName: r.Media, Favicon: r.Icon, Provider: Zhipu})
	}
	return res, nil
}
