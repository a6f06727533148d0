package docparse

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// html reads a page through the readability hook when one is set, else by its tags.
func (p *parser) html(data []byte) (*Document, error) {
	if p.opts.HTML != nil {
		title, md, err := p.opts.HTML(p.ctx, data)
		if err != nil {
			return nil, errCorrupt(p.name, err)
		}
		doc := parseMarkdown(md)
		doc.Title = title
		return doc, nil
	}
	b := &builder{max: p.opts.MaxText}
	title, err := p.htmlBlocks(bytes.NewReader(data), b)
	if err != nil {
		return nil, err
	}
	return &Document{Blocks: b.blocks, Title: title}, nil
}

// htmlWalk streams tokens (no tree, so no tree-building cost on hostile markup) and emits a
// block whenever a block-level element ends.
type htmlWalk struct {
	b       *builder
	text    strings.Builder
	level   int
	pre     int
	skip    int
	table   int
	row     []string
	rows    []string
	cell    strings.Builder
	title   strings.Builder
	inTitle bool
	open    int
}

var htmlSkip = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Template: true, atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true,
	atom.Nav: true}

var htmlBlock = map[atom.Atom]bool{atom.P: true, atom.Div: true, atom.Li: true, atom.Blockquote: true,
	atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true, atom.Main: true,
	atom.Aside: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
	atom.Figcaption: true, atom.Figure: true, atom.Hr: true, atom.Body: true, atom.Form: true,
	atom.Address: true, atom.Details: true, atom.Summary: true, atom.Caption: true}

var htmlVoid = map[atom.Atom]bool{atom.Br: true, atom.Img: true, atom.Hr: true, atom.Input: true,
	atom.Meta: true, atom.Link: true, atom.Col: true, atom.Area: true, atom.Base: true,
	atom.Embed: true, atom.Param: true, atom.Source: true, atom.Track: true, atom.Wbr: true}

func headingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

func (p *parser) htmlBlocks(r io.Reader, b *builder) (string, error) {
	z := html.NewTokenizer(r)
	z.SetMaxBuf(16 << 20)
	w := &htmlWalk{b: b}
	maxOpen := 4 * p.opts.MaxXMLDepth
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				return strings.TrimSpace(collapse(w.title.String())), w.flush()
			}
			return "", errCorrupt(p.name, z.Err())
		case html.TextToken:
			w.chars(string(z.Text()))
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if tt == html.StartTagToken && !htmlVoid[tok.DataAtom] {
				w.open++
			}
			if w.open > maxOpen {
				return "", errCorrupt(p.name, fmt.Errorf("HTML nested deeper than %d", maxOpen))
			}
			if err := w.start(tok.DataAtom, tt == html.SelfClosingTagToken); err != nil {
				return "", err
			}
		case html.EndTagToken:
			tok := z.Token()
			w.open = max(0, w.open-1)
			if err := w.end(tok.DataAtom); err != nil {
				return "", err
			}
		}
	}
}

func (w *htmlWalk) chars(s string) {
	switch {
	case w.skip > 0:
	case w.inTitle:
		w.title.WriteString(s)
	case w.table > 0:
		w.cell.WriteString(s)
	default:
		w.text.WriteString(s)
	}
}

func (w *htmlWalk) start(a atom.Atom, selfClosing bool) error {
	if htmlSkip[a] {
		if !selfClosing {
			w.skip++
		}
		return nil
	}
	switch {
	case a == atom.Title:
		w.inTitle = true
	case headingLevel(a) > 0:
		if err := w.flush(); err != nil {
			return err
		}
		w.level = headingLevel(a)
	case a == atom.Pre:
		if err := w.flush(); err != nil {
			return err
		}
		w.pre++
	case a == atom.Table:
		if err := w.flush(); err != nil {
			return err
		}
		w.table++
	case a == atom.Tr:
		w.row = nil
	case a == atom.Br:
		if w.pre > 0 {
			w.chars("\n")
		} else {
			w.chars(brMark)
		}
	case htmlBlock[a]:
		return w.flush()
	}
	return nil
}

func (w *htmlWalk) end(a atom.Atom) error {
	if htmlSkip[a] {
		w.skip = max(0, w.skip-1)
		return nil
	}
	switch {
	case a == atom.Title:
		w.inTitle = false
	case a == atom.Td || a == atom.Th:
		w.row = append(w.row, strings.TrimSpace(collapse(w.cell.String())))
		w.cell.Reset()
	case a == atom.Tr:
		w.rows = append(w.rows, strings.Join(w.row, " | "))
		w.row = nil
	case a == atom.Table && w.table > 0:
		w.table--
		if w.table == 0 {
			err := w.b.add(KindTable, strings.Join(w.rows, "\n"), 0, 0, 0)
			w.rows = nil
			return err
		}
	case headingLevel(a) > 0, a == atom.Pre, htmlBlock[a]:
		return w.flush()
	}
	return nil
}

// flush emits the collected text as the block the open element makes it.
func (w *htmlWalk) flush() error {
	raw := w.text.String()
	w.text.Reset()
	var err error
	switch {
	case w.pre > 0:
		err = w.b.add(KindCode, strings.Trim(raw, "\n"), 0, 0, 0)
		w.pre--
	case w.level > 0:
		err = w.b.add(KindHeading, collapse(strings.ReplaceAll(raw, brMark, " ")), w.level, 0, 0)
	default:
		err = w.b.add(KindParagraph, collapseKeepLines(raw), 0, 0, 0)
	}
	w.level = 0
	return err
}

// collapse folds runs of white space into one space, as a browser renders text.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// brMark stands for <br> in collected text until white space is collapsed (a private-use
// rune, so source line breaks, which are mere spaces in HTML, stay apart from it).
const brMark = "\uE000"

// collapseKeepLines collapses white space within the lines made by <br>.
func collapseKeepLines(s string) string {
	lines := strings.Split(s, brMark)
	out := lines[:0]
	for _, l := range lines {
		if c := collapse(l); c != "" {
			out = append(out, c)
		}
	}
	return strings.Join(out, "\n")
}
