package websearch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// searxng queries the user's SearXNG instance: GET /search?format=json. An instance whose
// settings.yml leaves json out of search.formats answers 403 (or, behind some proxies, an
// HTML page); that is reported as exactly the setting to change.
type searxng struct {
	noParseLink
	cfg Config
}

func newSearXNG(cfg Config) Provider { return &searxng{noParseLink{SearXNG}, cfg} }

func (*searxng) ID() string { return SearXNG }

type searxngResp struct {
	Results []struct {
		URL           string  `json:"url"`
		Title         string  `json:"title"`
		Content       string  `json:"content"`
		Engine        string  `json:"engine"`
		Score         float64 `json:"score"`
		PublishedDate *string `json:"publishedDate"`
	} `json:"results"`
}

func (s *searxng) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	base := s.cfg.base("")
	if base == "" {
		return nil, errEndpointRequired(SearXNG)
	}
	q := url.Values{"q": {siteQuery(query, o.Site)}, "format": {"json"}, "pageno": {"1"}}
	if o.Freshness != AnyTime {
		q.Set("time_range", string(o.Freshness))
	}
	if s.cfg.Language != "" {
		q.Set("language", s.cfg.Language)
	}
	body, _, err := send(ctx, s.cfg, request{id: SearXNG, method: http.MethodGet,
		url: withQuery(join(base, "search"), q), check: searxngCheck})
	if err != nil {
		return nil, err
	}
	var out searxngResp
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, errBadResponse(SearXNG, err)
	}
	res := make([]Result, 0, len(out.Results))
	for _, r := range out.Results {
		if len(res) == o.count() {
			break
		}
		pub := ""
		if r.PublishedDate != nil {
			pub = *r.PublishedDate
		}
		res = append(res, Result{Title: r.Title, URL: r.URL, Snippet: r.Content, Published: pub, SiteName: r.Engine, Provider: SearXNG})
	}
	return res, nil
}

// searxngCheck recognizes an instance with JSON output turned off: 403 Forbidden, or an
// HTML page where JSON was asked for.
func searxngCheck(resp *http.Response, body []byte) error {
	html := strings.Contains(strings.ToLower(resp.Header.Get("Content-Type")), "text/html")
	if resp.StatusCode == http.StatusForbidden || (resp.StatusCode == http.StatusOK && html) {
		return apperr.New(apperr.SearxngJSONDisabled,
			"SearXNG: the instance does not answer in JSON (HTTP %d%s); add json to search.formats in its settings.yml (search.formats: [html, json]) and restart it",
			resp.StatusCode, map[bool]string{true: ", an HTML page", false: ""}[html]).
			WithParam("provider", DisplayName(SearXNG)).WithParam("setting", "search.formats: [html, json]").
			WithParam("status", resp.StatusCode)
	}
	return nil
}

// siteQuery adds a site: operator for services that take it in the query itself.
func siteQuery(query, site string) string {
	if site == "" {
		return query
	}
	return query + " site:" + site
}
