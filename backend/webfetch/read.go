package webfetch

import (
	"context"
	"net/url"
	"strings"
)

// Fetch reads the page at raw (http or https) as Markdown. A failure is an *apperr.Error
// whose message is the technical reason.
func (f *Fetcher) Fetch(ctx context.Context, raw string) (Page, error) {
	u, err := checkURL(raw)
	if err != nil {
		return Page{}, err
	}
	getCtx, cancel := context.WithTimeout(ctx, f.opt.Timeout)
	defer cancel()
	resp, err := f.get(getCtx, u)
	if err != nil {
		return Page{}, err
	}
	p := Page{URL: resp.url.String(), ContentType: resp.contentType, Bytes: len(resp.body)}
	if p.URL != u.String() {
		p.Requested = u.String()
	}
	ct := resp.contentType
	if !isHTML(ct) && ct != "application/pdf" && !isText(ct) {
		return Page{}, unsupported(u, resp.header)
	}
	return withContext(ctx, resp.url, func() (Page, error) {
		if err := f.convert(ctx, &p, resp); err != nil {
			return Page{}, err
		}
		p.Markdown, p.Chars, p.Dropped = cut(p.Markdown, f.opt.MaxChars)
		p.Chars += p.pruned
		p.Dropped += p.pruned
		return p, nil
	})
}

func (f *Fetcher) convert(ctx context.Context, p *Page, resp response) error {
	switch ct := resp.contentType; {
	case isHTML(ct):
		return f.readHTML(ctx, p, resp)
	case ct == "application/pdf":
		return readPDF(p, resp)
	default:
		p.Markdown, p.Charset = decode(resp.body, resp.header)
		p.Markdown = strings.TrimSpace(p.Markdown)
		return nil
	}
}

// withContext runs a conversion, which works on bytes already read and looks at no
// context, on its own goroutine: a stopped call returns at once, and the conversion, bounded
// by the size cap, ends on its own.
func withContext(ctx context.Context, u *url.URL, fn func() (Page, error)) (Page, error) {
	type result struct {
		p   Page
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := fn()
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		return r.p, r.err
	case <-ctx.Done():
		return Page{}, failed(u, ctx.Err())
	}
}

func isHTML(ct string) bool { return ct == "text/html" || ct == "application/xhtml+xml" }

func isText(ct string) bool {
	return strings.HasPrefix(ct, "text/") || ct == "application/json" || ct == "application/xml" ||
		strings.HasSuffix(ct, "+json") || strings.HasSuffix(ct, "+xml")
}

func readPDF(p *Page, resp response) error {
	text, title, err := pdfText(resp.body)
	if err != nil {
		return failed(resp.url, err)
	}
	p.Markdown, p.Title = text, title
	if text == "" {
		p.Note = "The PDF has no extractable text (it may be scanned images)."
	}
	return nil
}

// readHTML extracts the page; one whose static HTML has (almost) no text but runs scripts
// is rendered in a headless Chromium when one is installed.
func (f *Fetcher) readHTML(ctx context.Context, p *Page, resp response) error {
	text, cs := decode(resp.body, resp.header)
	p.Charset = cs
	a, err := extractHTML(text, resp.url, f.keepChars())
	if err != nil {
		return failed(resp.url, err)
	}
	if !a.readable() && a.scripts {
		a = f.renderInstead(ctx, p, resp.url, a)
	}
	p.Title, p.Byline, p.Published, p.SiteName, p.Markdown = a.title, a.byline, a.published, a.siteName, a.markdown
	p.pruned = a.pruned
	return nil
}

// keepChars is how much text extraction converts: twice what the cut keeps, since Markdown
// is seldom shorter than the text it writes and the cut should fall in Markdown.
func (f *Fetcher) keepChars() int {
	return 2 * f.opt.MaxChars
}

func (f *Fetcher) renderInstead(ctx context.Context, p *Page, u *url.URL, static article) article {
	if f.browser == "" {
		p.Note = "The page's HTML has little or no readable text: it is probably built by JavaScript in the browser, and no Chromium is installed to render it."
		return static
	}
	rctx, cancel := context.WithTimeout(ctx, f.opt.RenderTimeout)
	defer cancel()
	dom, err := f.render(rctx, u)
	if err != nil {
		p.Note = "The page's HTML has little or no readable text, and rendering it in headless Chromium failed: " + err.Error()
		return static
	}
	a, err := extractHTML(dom, u, f.keepChars())
	if err != nil || strings.TrimSpace(a.markdown) == "" {
		p.Note = "The page has no readable text, even rendered in headless Chromium."
		return static
	}
	p.Rendered = true
	return a
}
