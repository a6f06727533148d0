package websearch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// brave speaks the Brave Search API: GET /res/v1/web/search with X-Subscription-Token.
type brave struct {
	noParseLink
	cfg Config
}

func newBrave(cfg Config) Provider { return &brave{noParseLink{Brave}, cfg} }

func (*brave) ID() string { return Brave }

type braveResp struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
			Age         string `json:"age"`
			PageAge     string `json:"page_age"`
			Profile     struct {
				Name string `json:"name"`
			} `json:"profile"`
			MetaURL struct {
				Favicon string `json:"favicon"`
			} `json:"meta_url"`
		} `json:"results"`
	} `json:"web"`
}

var braveFreshness = map[Freshness]string{PastDay: "pd", PastWeek: "pw", PastMonth: "pm", PastYear: "py"}

func (b *brave) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	if b.cfg.Key == "" {
		return nil, errKeyRequired(Brave)
	}
	q := url.Values{"q": {siteQuery(query, o.Site)}, "count": {strconv.Itoa(o.count())}}
	if f := braveFreshness[o.Freshness]; f != "" {
		q.Set("freshness", f)
	}
	var out braveResp
	err := sendJSON(ctx, b.cfg, request{id: Brave, method: http.MethodGet,
		url:    withQuery(join(b.cfg.base("https://api.search.brave.com"), "res/v1/web/search"), q),
		header: map[string]string{"X-Subscription-Token": b.cfg.Key}, check: braveCheck}, &out)
	if err != nil {
		return nil, err
	}
	res := make([]Result, 0, len(out.Web.Results))
	for _, r := range out.Web.Results {
		res = append(res, Result{Title: r.Title, URL: r.URL, Snippet: stripTags(r.Description),
			Published: firstNonEmpty(r.PageAge, r.Age), SiteName: r.Profile.Name, Favicon: r.MetaURL.Favicon, Provider: Brave})
	}
	return res, nil
}

// braveCheck: Brave refuses a bad token with 422 SUBSCRIPTION_TOKEN_INVALID, not 401.
func braveCheck(resp *http.Response, body []byte) error {
	if resp.StatusCode < 400 {
		return nil
	}
	var e struct {
		Error struct {
			Code   string `json:"code"`
			Detail string `json:"detail"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && strings.Contains(e.Error.Code, "TOKEN") {
		return failure(apperr.SearchKeyInvalid, Brave, "the API key was refused (HTTP %d %s: %s)", resp.StatusCode, e.Error.Code, e.Error.Detail).
			WithParam("status", resp.StatusCode).WithParam("reason", short(e.Error.Detail))
	}
	return nil
}

// stripTags removes the <strong> highlighting some services put in snippets.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}
