package websearch

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// jina speaks Jina's Search Foundation APIs: the search API (s.jina.ai) and the reader
// (r.jina.ai), both POST with a JSON body and Accept: application/json. The reader answers
// without a key (at a lower rate); search needs one.
type jina struct{ cfg Config }

func newJina(cfg Config) Provider { return &jina{cfg: cfg} }

func (*jina) ID() string              { return Jina }
func (*jina) SupportsParseLink() bool { return true }

type jinaDoc struct {
	Title         string `json:"title"`
	URL           string `json:"url"`
	Description   string `json:"description"`
	Content       string `json:"content"`
	Date          string `json:"date"`
	PublishedTime string `json:"publishedTime"`
}

func (j *jina) headers(extra map[string]string) map[string]string {
	h := map[string]string{}
	if j.cfg.Key != "" {
		h["Authorization"] = "Bearer " + j.cfg.Key
	}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

// readerBase is r.jina.ai, or the overridden endpoint with an s. host turned into r.
// (a self-hosted or proxied deployment that serves both under one base keeps it).
func (j *jina) readerBase() string {
	base := j.cfg.base("https://s.jina.ai")
	if u, err := url.Parse(base); err == nil && strings.HasPrefix(u.Host, "s.") {
		u.Host = "r." + strings.TrimPrefix(u.Host, "s.")
		return u.String()
	}
	return base
}

func (j *jina) Search(ctx context.Context, query string, o Options) ([]Result, error) {
	if j.cfg.Key == "" {
		return nil, errKeyRequired(Jina)
	}
	extra := map[string]string{"X-Respond-With": "no-content"}
	if o.Site != "" {
		extra["X-Site"] = o.Site
	}
	var out struct {
		Data []jinaDoc `json:"data"`
	}
	err := sendJSON(ctx, j.cfg, request{id: Jina, method: http.MethodPost, url: j.cfg.base("https://s.jina.ai") + "/",
		header: j.headers(extra), body: map[string]any{"q": query, "num": o.count()}}, &out)
	if err != nil {
		return nil, err
	}
	res := make([]Result, 0, len(out.Data))
	for _, d := range out.Data {
		if len(res) == o.count() {
			break
		}
		res = append(res, Result{Title: d.Title, URL: d.URL, Snippet: firstNonEmpty(d.Description, d.Content),
			Published: d.Date, Provider: Jina})
	}
	return res, nil
}

func (j *jina) ParseLink(ctx context.Context, u string) (Page, error) {
	var out struct {
		Data *jinaDoc `json:"data"`
	}
	err := sendJSON(ctx, j.cfg, request{id: Jina, method: http.MethodPost, url: j.readerBase() + "/",
		header: j.headers(map[string]string{"X-Return-Format": "markdown"}), body: map[string]any{"url": u}}, &out)
	if err != nil {
		return Page{}, err
	}
	if out.Data == nil || strings.TrimSpace(out.Data.Content) == "" {
		return Page{}, parseLinkFailed(Jina, u, "Jina reader returned no content")
	}
	d := out.Data
	return Page{URL: firstNonEmpty(d.URL, u), Title: d.Title, Content: d.Content, Published: d.PublishedTime, Provider: Jina}, nil
}
