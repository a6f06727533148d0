package websearch

import (
	"context"
	"net/http"
)

// bocha speaks BoCha's Web Search API: POST /v1/web-search with a bearer key; the answer
// wraps a Bing-compatible SearchResponse in {"code", "msg", "data"}.
type bocha struct {
	noParseLink
	cfg Config
}

func newBoCha(cfg Config) Provider { return &bocha{noParseLink{BoCha}, cfg} }

func (*bocha) ID() string { return BoCha }

type bochaResp struct {
	Code int    `json:"code"`
	Msg  string `json:"msg"`
	Data struct {
		WebPages struct {
			Value []struct {
				Name          string `json:"name"`
				URL           string `json:"url"`
				Snippet       string `json:"snippet"`
				Summary       string `json:"summary"`
				SiteName      string `json:"siteName"`
				SiteIcon      string `json:"siteIcon"`
				DatePublished string `json:"datePublished"`
			} `json:"value"`
		} `json:"webPages"`
	} `json:"data"`
}

// chineseFreshness is the spelling BoCha and Zhipu share.
var chineseFreshness = map[Freshness]string{AnyTime: "noLimit", PastDay: "oneDay", PastWeek: "oneWeek",
	PastMonth: "oneMonth", PastYear: "oneYear"}

func (b *bocha) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	if b.cfg.Key == "" {
		return nil, errKeyRequired(BoCha)
	}
	body := map[string]any{"query": query, "freshness": chineseFreshness[o.Freshness], "summary": true, "count": o.count()}
	if o.Site != "" {
		body["include"] = o.Site
	}
	var out bochaResp
	err := sendJSON(ctx, b.cfg, request{id: BoCha, method: http.MethodPost, url: join(b.cfg.base("https://api.bochaai.com"), "v1/web-search"),
		header: bearer(b.cfg.Key), body: body}, &out)
	if err != nil {
		return nil, err
	}
	if out.Code != 0 && out.Code != 200 {
		return nil, statusError(BoCha, out.Code, out.Msg, 0)
	}
	res := make([]Result, 0, len(out.Data.WebPages.Value))
	for _, r := range out.Data.WebPages.Value {
		res = append(res, Result{Title: r.Name, URL: r.URL, Snippet: firstNonEmpty(r.Summary, r.Snippet), Published: r.DatePublished,
			SiteName: r.SiteName, Favicon: r.SiteIcon, Provider: BoCha})
	}
	return res, nil
}
