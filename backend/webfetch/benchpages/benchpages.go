// Package benchpages generates the pages the fetcher's benchmarks read: the same bytes for
// Cairn's pipeline and for the peers' (bench/webfetch), made here rather than downloaded so
// that every run reads the same pages and no benchmark reaches beyond loopback.
package benchpages

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Page is one generated page and the main text a reader should keep of it.
type Page struct {
	Name string
	HTML string
	// Main is the page's main text (its article's words, table cells and code), without
	// the navigation, sidebars, comments and footer around it.
	Main string
}

// All are the benchmark's pages: a 2 MB article, a 200 KB news page, a table-heavy docs page.
func All() []Page {
	return []Page{Article(2 << 20), News(200 << 10), Docs()}
}

var vocabulary = strings.Fields(`stone cairn trail ridge summit valley river glacier moss
lichen granite basalt path marker hiker shepherd weather fog wind north south east west
ancient builder pile cover landmark burial mountain moor heath coast island highland
season winter summer walker map compass route descent climb shelter bothy loch tarn
village parish record survey century history custom tradition story memory distance`)

type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

func (g *gen) words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = vocabulary[g.r.IntN(len(vocabulary))]
	}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ") + "."
}

// paragraph is a paragraph with an inline link and emphasis; main gets its text.
func (g *gen) paragraph(b, main *strings.Builder) {
	s1, s2, s3 := g.words(12+g.r.IntN(10)), g.words(3), g.words(14+g.r.IntN(10))
	fmt.Fprintf(b, "<p>%s <a href=\"/wiki/%d\">%s</a> <em>%s</em></p>\n", s1, g.r.IntN(10000), s2, s3)
	main.WriteString(s1 + " " + s2 + " " + s3 + "\n")
}

func chrome(b *strings.Builder, g *gen, links int) {
	b.WriteString(`<header class="site-header"><nav class="menu"><ul>`)
	for i := 0; i < links; i++ {
		fmt.Fprintf(b, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
	}
	b.WriteString("</ul></nav></header>\n")
}

func sidebar(b *strings.Builder, g *gen, items int) {
	b.WriteString(`<aside class="sidebar related"><h3>Related</h3><ul>`)
	for i := 0; i < items; i++ {
		fmt.Fprintf(b, `<li><a href="/related/%d">%s</a></li>`, i, g.words(5))
	}
	b.WriteString("</ul></aside>\n")
}

func footer(b *strings.Builder, g *gen) {
	b.WriteString(`<footer class="site-footer"><p>Copyright Example Media. All rights reserved.</p><ul>`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(b, `<li><a href="/legal/%d">Legal %d</a></li>`, i, i)
	}
	b.WriteString("</ul></footer>\n")
}

func head(b *strings.Builder, title string) {
	fmt.Fprintf(b, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title>
<meta name="author" content="Ada Lovelace"><meta property="article:published_time" content="2024-05-06T10:00:00Z">
<style>body{font-family:sans-serif}.ad{display:block}</style>
<script>window.analytics = {track: function(){}};</script></head><body>
`, title)
}

// Article is a long article page of about size bytes: sections of paragraphs, lists and
// quotes inside heavy site chrome and a comment section.
func Article(size int) Page {
	g := newGen(1)
	var b, main strings.Builder
	head(&b, "The long history of cairns")
	chrome(&b, g, 60)
	sidebar(&b, g, 40)
	b.WriteString(`<main><article class="post"><h1>The long history of cairns</h1><p class="byline">By <span class="author">Ada Lovelace</span></p>` + "\n")
	for sec := 0; b.Len() < size*9/10; sec++ {
		h := g.words(4)
		fmt.Fprintf(&b, "<h2>%s</h2>\n", h)
		main.WriteString(h + "\n")
		for i := 0; i < 8; i++ {
			g.paragraph(&b, &main)
		}
		b.WriteString("<ul>")
		for i := 0; i < 4; i++ {
			li := g.words(6)
			fmt.Fprintf(&b, "<li>%s</li>", li)
			main.WriteString(li + "\n")
		}
		b.WriteString("</ul>\n")
		q := g.words(20)
		fmt.Fprintf(&b, "<blockquote><p>%s</p></blockquote>\n", q)
		main.WriteString(q + "\n")
	}
	b.WriteString("</article>\n")
	comments(&b, g, size-b.Len()-4096)
	b.WriteString("</main>\n")
	footer(&b, g)
	b.WriteString("</body></html>\n")
	return Page{Name: "article-2MB", HTML: b.String(), Main: main.String()}
}

func comments(b *strings.Builder, g *gen, size int) {
	b.WriteString(`<section class="comments" id="comments"><h3>Comments</h3>`)
	for start := b.Len(); b.Len()-start < size; {
		fmt.Fprintf(b, `<div class="comment"><span class="comment-author">user%d</span><p>%s</p><a href="#reply" class="reply">Reply</a></div>`+"\n", g.r.IntN(999), g.words(15))
	}
	b.WriteString("</section>\n")
}

// News is a news page of about size bytes: a short article in a page that is mostly
// menus, teasers, ads and scripts.
func News(size int) Page {
	g := newGen(2)
	var b, main strings.Builder
	head(&b, "Record number of walkers on the ridge")
	chrome(&b, g, 120)
	b.WriteString(`<div class="ad banner"><a href="/ads/1"><img src="/ads/1.png" alt="Advertisement"></a></div>` + "\n")
	sidebar(&b, g, 80)
	b.WriteString(`<main><article class="story"><h1>Record number of walkers on the ridge</h1><p class="byline">By <span class="author">Ada Lovelace</span></p>` + "\n")
	for i := 0; i < 40; i++ {
		g.paragraph(&b, &main)
		if i%10 == 9 {
			b.WriteString(`<div class="ad inline"><script>window.analytics.track("ad");</script><a href="/ads/2">Sponsored</a></div>` + "\n")
		}
	}
	b.WriteString("</article>\n")
	b.WriteString(`<section class="more-news"><h3>More news</h3>`)
	for b.Len() < size-8192 {
		fmt.Fprintf(&b, `<div class="teaser"><a href="/news/%d"><img src="/img/%d.jpg" alt=""><h4>%s</h4></a><span class="teaser-meta">2 hours ago</span></div>`+"\n", g.r.IntN(1e6), g.r.IntN(1e6), g.words(7))
	}
	b.WriteString("</section></main>\n")
	b.WriteString(`<script>` + strings.Repeat("window.analytics.track('page');", 100) + `</script>` + "\n")
	footer(&b, g)
	b.WriteString("</body></html>\n")
	return Page{Name: "news-200KB", HTML: b.String(), Main: main.String()}
}

// Docs is a reference page: tables of parameters, code examples and prose, with a long
// navigation sidebar.
func Docs() Page {
	g := newGen(3)
	var b, main strings.Builder
	head(&b, "Trail API reference")
	chrome(&b, g, 40)
	b.WriteString(`<nav class="toc docs-sidebar"><ul>`)
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&b, `<li><a href="/docs/%d">Topic %d</a></li>`, i, i)
	}
	b.WriteString("</ul></nav>\n<main><article class=\"docs\"><h1>Trail API reference</h1>\n")
	for t := 0; t < 12; t++ {
		h := g.words(3)
		fmt.Fprintf(&b, "<h2>%s</h2>\n", h)
		main.WriteString(h + "\n")
		g.paragraph(&b, &main)
		g.paragraph(&b, &main)
		b.WriteString("<table><thead><tr><th>Name</th><th>Type</th><th>Default</th><th>Description</th></tr></thead><tbody>\n")
		main.WriteString("Name Type Default Description\n")
		for r := 0; r < 30; r++ {
			name, typ, desc := fmt.Sprintf("field_%d_%d", t, r), []string{"string", "integer", "boolean"}[r%3], g.words(9)
			fmt.Fprintf(&b, "<tr><td><code>%s</code></td><td>%s</td><td>%d</td><td>%s</td></tr>\n", name, typ, r, desc)
			fmt.Fprintf(&main, "%s %s %d %s\n", name, typ, r, desc)
		}
		b.WriteString("</tbody></table>\n")
		code := fmt.Sprintf("client := trail.New()\nresp, err := client.Get(ctx, \"route_%d\")\nif err != nil {\n\treturn err\n}", t)
		fmt.Fprintf(&b, "<pre><code class=\"language-go\">%s</code></pre>\n", code)
		main.WriteString(code + "\n")
	}
	b.WriteString("</article></main>\n")
	footer(&b, g)
	b.WriteString("</body></html>\n")
	return Page{Name: "docs-tables", HTML: b.String(), Main: main.String()}
}
