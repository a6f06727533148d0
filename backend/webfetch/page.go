package webfetch

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Page is one read page.
type Page struct {
	// URL is where the page was read, after redirects.
	URL string `json:"url"`
	// Requested is the address asked for, when redirects led elsewhere.
	Requested   string `json:"requested,omitempty"`
	Title       string `json:"title,omitempty"`
	Byline      string `json:"byline,omitempty"`
	Published   string `json:"published,omitempty"` // as the page says it, or YYYY-MM-DD
	SiteName    string `json:"siteName,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Charset     string `json:"charset,omitempty"`
	// Markdown is the readable text, cut to the fetcher's MaxChars.
	Markdown string `json:"markdown"`
	// Bytes is the size of the body as fetched.
	Bytes int `json:"bytes"`
	// Chars is the length of the whole text in characters; Dropped how many were cut. Text
	// far past the cut is dropped before it is converted, so it counts as text, the rest
	// as Markdown.
	Chars   int `json:"chars"`
	Dropped int `json:"dropped,omitempty"`
	pruned  int
	// Rendered says the text came from a headless browser's DOM.
	Rendered bool `json:"rendered,omitempty"`
	// Note says why a page came out empty or was read another way.
	Note string `json:"note,omitempty"`
	// Provider names the search provider that read the page; empty for Cairn's fetcher.
	Provider string `json:"provider,omitempty"`
}

// Text is the page as the model reads it: a short header (title, address, byline, date)
// then the Markdown, and the notes of what was cut or why nothing came out.
func (p Page) Text() string {
	var b strings.Builder
	if p.Title != "" {
		fmt.Fprintf(&b, "# %s\n\n", oneLine(p.Title))
	}
	fmt.Fprintf(&b, "URL: %s\n", p.URL)
	if p.Byline != "" {
		fmt.Fprintf(&b, "By: %s\n", oneLine(p.Byline))
	}
	if p.Published != "" {
		fmt.Fprintf(&b, "Published: %s\n", oneLine(p.Published))
	}
	if p.SiteName != "" {
		fmt.Fprintf(&b, "Site: %s\n", oneLine(p.SiteName))
	}
	if p.Provider != "" {
		fmt.Fprintf(&b, "Read by: %s\n", p.Provider)
	}
	b.WriteString("\n")
	b.WriteString(p.Markdown)
	if p.Dropped > 0 {
		fmt.Fprintf(&b, "\n\n[Cut: the last %d of %d characters were dropped.]", p.Dropped, p.Chars)
	}
	if p.Note != "" {
		fmt.Fprintf(&b, "\n\n[%s]", p.Note)
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cut keeps the first max characters of text, at a paragraph or line end when one is near,
// and says how many were dropped.
func cut(text string, max int) (kept string, total, dropped int) {
	total = utf8.RuneCountInString(text)
	if total <= max {
		return text, total, 0
	}
	end, n := len(text), 0
	for i := range text {
		if n == max {
			end = i
			break
		}
		n++
	}
	kept = text[:end]
	if i := strings.LastIndex(kept, "\n\n"); i > len(kept)*4/5 {
		kept = kept[:i]
	} else if i := strings.LastIndexByte(kept, '\n'); i > len(kept)*9/10 {
		kept = kept[:i]
	}
	kept = strings.TrimRight(kept, " \n")
	return kept, total, total - utf8.RuneCountInString(kept)
}
