package websearch

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// bing reads Bing's own results page (no key): GET /search, one li.b_algo per result. A
// page with neither results nor Bing's "no results" notice (a CAPTCHA, a consent page) is
// a failure, not an empty list.
type bing struct {
	noParseLink
	cfg Config
}

func newBing(cfg Config) Provider { return &bing{noParseLink{Bing}, cfg} }

func (*bing) ID() string { return Bing }

// browserHeaders are what Bing needs to answer with its ordinary results page.
func browserHeaders(lang, accept string) map[string]string {
	if lang == "" {
		lang = "en"
	}
	return map[string]string{
		"User-Agent":      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
		"Accept":          accept,
		"Accept-Language": lang + ",en;q=0.8",
	}
}

var bingFilter = map[Freshness]string{PastDay: `ex1:"ez1"`, PastWeek: `ex1:"ez2"`, PastMonth: `ex1:"ez3"`}

func (b *bing) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	q := url.Values{"q": {siteQuery(query, o.Site)}, "count": {strconv.Itoa(o.count())}}
	if f := bingFilter[o.Freshness]; f != "" {
		q.Set("filters", f)
	}
	if b.cfg.Language != "" {
		q.Set("setlang", b.cfg.Language)
	}
	body, _, err := send(ctx, b.cfg, request{id: Bing, method: http.MethodGet, url: withQuery(join(b.cfg.base("https://www.bing.com"), "search"), q),
		header: browserHeaders(b.cfg.Language, "text/html,application/xhtml+xml")})
	if err != nil {
		return nil, err
	}
	res, err := parseBingPage(body)
	if err != nil {
		return nil, errBadResponse(Bing, err)
	}
	if len(res) > o.count() {
		res = res[:o.count()]
	}
	return res, nil
}

// parseBingPage reads the results of a Bing results page.
func parseBingPage(page []byte) ([]Result, error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, err
	}
	var res []Result
	noResults := false
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n.Data != "li" {
			return true
		}
		switch {
		case hasClass(n, "b_algo"):
			if r, ok := bingResult(n); ok {
				res = append(res, r)
			}
			return false
		case hasClass(n, "b_no"):
			noResults = true
		}
		return true
	})
	if len(res) == 0 && !noResults {
		return nil, fmt.Errorf("the page has no results list (Bing may be asking for a CAPTCHA or consent)")
	}
	return res, nil
}

func bingResult(li *html.Node) (Result, bool) {
	var r Result
	walk(li, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch {
		case n.Data == "h2" && r.URL == "":
			if a := find(n, func(c *html.Node) bool { return c.Type == html.ElementNode && c.Data == "a" }); a != nil {
				r.URL, r.Title = bingTarget(attr(a, "href")), text(a)
			}
			return false
		case n.Data == "p" && r.Snippet == "":
			r.Snippet = text(n)
			return false
		}
		return true
	})
	r.Provider = Bing
	return r, r.URL != "" && r.Title != ""
}

// bingTarget undoes Bing's click-tracking link (/ck/a?…&u=a1<base64url of the target>).
func bingTarget(href string) string {
	u, err := url.Parse(href)
	if err != nil || !strings.HasSuffix(u.Host, "bing.com") || !strings.HasPrefix(u.Path, "/ck/") {
		return href
	}
	enc := strings.TrimPrefix(u.Query().Get("u"), "a1")
	dec, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "="))
	if err != nil || !strings.HasPrefix(string(dec), "http") {
		return href
	}
	return string(dec)
}

// walk visits n and its descendants depth-first; fn returns false to skip a node's children.
func walk(n *html.Node, fn func(*html.Node) bool) {
	if !fn(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

func find(n *html.Node, pred func(*html.Node) bool) *html.Node {
	var found *html.Node
	walk(n, func(c *html.Node) bool {
		if found != nil {
			return false
		}
		if pred(c) {
			found = c
			return false
		}
		return true
	})
	return found
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return true
	})
	return strings.Join(strings.Fields(b.String()), " ")
}
