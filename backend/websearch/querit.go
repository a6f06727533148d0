package websearch

import (
	"context"
	"net/http"
	"strconv"
)

// querit speaks Querit's search API: POST /v1/search with a bearer key; failures may come
// as HTTP 200 with error_code and error_msg in the body.
type querit struct {
	noParseLink
	cfg Config
}

func newQuerit(cfg Config) Provider { return &querit{noParseLink{Querit}, cfg} }

func (*querit) ID() string { return Querit }

type queritResp struct {
	ErrorCode any    `json:"error_code"` // a number or its text
	ErrorMsg  string `json:"error_msg"`
	Results   struct {
		Result []struct {
			URL      string `json:"url"`
			Title    string `json:"title"`
			Snippet  string `json:"snippet"`
			PageAge  string `json:"page_age"`
			SiteName string `json:"site_name"`
			SiteIcon string `json:"site_icon"`
		} `json:"result"`
	} `json:"results"`
}

var queritDate = map[Freshness]string{PastDay: "d1", PastWeek: "w1", PastMonth: "m1", PastYear: "y1"}

func (q *querit) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	if q.cfg.Key == "" {
		return nil, errKeyRequired(Querit)
	}
	filters := map[string]any{}
	if o.Site != "" {
		filters["sites"] = map[string]any{"include": []string{o.Site}}
	}
	if d := queritDate[o.Freshness]; d != "" {
		filters["timeRange"] = map[string]any{"date": d}
	}
	body := map[string]any{"query": query, "count": o.count()}
	if len(filters) > 0 {
		body["filters"] = filters
	}
	var out queritResp
	err := sendJSON(ctx, q.cfg, request{id: Querit, method: http.MethodPost, url: join(q.cfg.base("https://api.querit.ai"), "v1/search"),
		header: bearer(q.cfg.Key), body: body}, &out)
	if err != nil {
		return nil, err
	}
	if code := queritCode(out.ErrorCode); code != 0 && code != 200 {
		return nil, statusError(Querit, code, out.ErrorMsg, 0)
	}
	res := make([]Result, 0, len(out.Results.Result))
	for _, r := range out.Results.Result {
		res = append(res, Result{Title: r.Title, URL: r.URL, Snippet: r.Snippet, Published: r.PageAge, SiteName: r.SiteName,
			Favicon: r.SiteIcon, Provider: Querit})
	}
	return res, nil
}

func queritCode(v any) int {
	switch c := v.(type) {
	case float64:
		return int(c)
	case string:
		n, _ := strconv.Atoi(c)
		return n
	}
	return 0
}
