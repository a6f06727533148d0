package webfetch

import (
	"bytes"
	"net/url"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// minReadable is how many characters of text a page needs to count as readable; less, on
// a page that runs scripts, is taken for a page the browser builds.
const minReadable = 200

// article is what extraction found in an HTML document.
type article struct {
	title, byline, published, siteName string
	markdown                           string
	scripts                            bool // the page runs scripts
	pruned                             int  // characters of text dropped before conversion
}

func (a article) readable() bool {
	return utf8.RuneCountInString(strings.TrimSpace(a.markdown)) >= minReadable
}

// newConverter is HTML → Markdown with links, lists, code, tables and strikethrough.
func newConverter() *converter.Converter {
	return converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
}

// extractHTML finds the main text of a page (readability) and converts it to Markdown,
// links made absolute against base. A page readability finds nothing in is converted
// whole, without its scripts, styles and navigation. Text past keep characters is dropped
// before conversion (the cut would drop its Markdown anyway) and counted in pruned.
func extractHTML(text string, base *url.URL, keep int) (article, error) {
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return article{}, err
	}
	a := article{scripts: hasScripts(doc)}
	var whole *html.Node
	if body := findBody(doc); body != nil {
		whole = clone(body)
	}
	// Classes are kept so code blocks keep their language ("language-go").
	parser := readability.NewParser()
	parser.KeepClasses = true
	art, rerr := parser.ParseDocument(doc, base)
	if rerr == nil {
		a.title, a.byline, a.siteName = art.Title(), art.Byline(), art.SiteName()
		if t, err := art.PublishedTime(); err == nil {
			a.published = t.Format("2006-01-02")
		}
	}
	node := art.Node
	if rerr != nil || node == nil || strings.TrimSpace(textOf(node)) == "" {
		node = whole
	}
	if node == nil {
		return a, nil
	}
	a.pruned = prune(node, keep)
	md, err := newConverter().ConvertNode(node, converter.WithDomain(base.Scheme+"://"+base.Host))
	if err != nil {
		return a, err
	}
	a.markdown = string(bytes.TrimSpace(md))
	if a.title == "" {
		a.title = titleOf(doc)
	}
	return a, nil
}

// dropTags are left out of a whole-page conversion.
var dropTags = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Nav: true,
	atom.Template: true, atom.Iframe: true, atom.Svg: true, atom.Form: true}

// clone copies n without the elements a reader never wants.
func clone(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace, Attr: append([]html.Attribute(nil), n.Attr...)}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type == html.ElementNode && dropTags[ch.DataAtom] {
			continue
		}
		c.AppendChild(clone(ch))
	}
	return c
}

func findBody(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == atom.Body {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if b := findBody(c); b != nil {
			return b
		}
	}
	return nil
}

func hasScripts(n *html.Node) bool {
	if n.Type == html.ElementNode && n.DataAtom == atom.Script {
		return true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if hasScripts(c) {
			return true
		}
	}
	return false
}

func titleOf(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		return strings.TrimSpace(textOf(n))
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := titleOf(c); t != "" {
			return t
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// prune keeps the first keep characters of n's text, in whole blocks: the child that
// crosses the limit is pruned the same way when it is much larger than what is left, every
// child after it is removed. It returns how many characters of text were removed.
func prune(n *html.Node, keep int) int {
	seen := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		l := textLen(c)
		if seen+l <= keep {
			seen += l
			continue
		}
		dropped := 0
		if c.Type == html.ElementNode && l > 2*(keep-seen)+1024 {
			dropped = prune(c, keep-seen)
		}
		for s := c.NextSibling; s != nil; {
			next := s.NextSibling
			dropped += textLen(s)
			n.RemoveChild(s)
			s = next
		}
		return dropped
	}
	return 0
}

func textLen(n *html.Node) int {
	if n.Type == html.TextNode {
		return utf8.RuneCountInString(n.Data)
	}
	if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
		return 0
	}
	l := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		l += textLen(c)
	}
	return l
}
