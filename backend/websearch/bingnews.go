package websearch

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// bingNews reads Bing News' RSS feed (no key): GET /news/search?format=rss.
type bingNews struct {
	noParseLink
	cfg Config
}

func newBingNews(cfg Config) Provider { return &bingNews{noParseLink{BingNews}, cfg} }

func (*bingNews) ID() string { return BingNews }

type rssFeed struct {
	XMLName xml.Name
	Channel struct {
		Items []struct {
			Title       string `xml:"title"`
			Link        string `xml:"link"`
			Description string `xml:"description"`
			PubDate     string `xml:"pubDate"`
			AnySource   []struct {
				XMLName xml.Name
				Value   string `xml:",chardata"`
			} `xml:",any"`
		} `xml:"item"`
	} `xml:"channel"`
}

// bingNewsInterval is Bing News' qft filter: 7 the past 24 hours, 8 the past week, 9 the
// past month.
var bingNewsInterval = map[Freshness]string{PastDay: `interval="7"`, PastWeek: `interval="8"`, PastMonth: `interval="9"`}

func (b *bingNews) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	q := url.Values{"q": {siteQuery(query, o.Site)}, "format": {"rss"}}
	if f := bingNewsInterval[o.Freshness]; f != "" {
		q.Set("qft", f)
	}
	if b.cfg.Language != "" {
		q.Set("setlang", b.cfg.Language)
	}
	body, _, err := send(ctx, b.cfg, request{id: BingNews, method: http.MethodGet,
		url:    withQuery(join(b.cfg.base("https://www.bing.com"), "news/search"), q),
		header: browserHeaders(b.cfg.Language, "application/rss+xml,application/xml,text/xml")})
	if err != nil {
		return nil, err
	}
	var feed rssFeed
	if err := xml.Unmarshal(body, &feed); err != nil {
		return nil, errBadResponse(BingNews, err)
	}
	if feed.XMLName.Local != "rss" {
		return nil, errBadResponse(BingNews, fmt.Errorf("the answer is not an RSS feed (<%s>)", feed.XMLName.Local))
	}
	res := []Result{}
	for _, it := range feed.Channel.Items {
		if len(res) == o.count() {
			break
		}
		src := ""
		for _, a := range it.AnySource {
			if a.XMLName.Local == "Source" {
				src = strings.TrimSpace(a.Value)
			}
		}
		res = append(res, Result{Title: strings.TrimSpace(it.Title), URL: bingNewsTarget(strings.TrimSpace(it.Link)),
			Snippet: stripTags(strings.TrimSpace(it.Description)), Published: it.PubDate, SiteName: src, Provider: BingNews})
	}
	return res, nil
}

// bingNewsTarget undoes the feed's click-through link (apiclick.aspx?…&url=<target>).
func bingNewsTarget(link string) string {
	u, err := url.Parse(link)
	if err != nil || !strings.HasSuffix(u.Host, "bing.com") {
		return link
	}
	if t := u.Query().Get("url"); strings.HasPrefix(t, "http") {
		return t
	}
	return link
}
