package docparse

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/ledongthuc/pdf"
)

// pdfLine is one line of a page as laid out: its text, font size and baseline.
type pdfLine struct {
	page int
	text string
	size float64
	y    float64
	gap  bool // a paragraph break before it
}

// pdf reads every page with the pure-Go reader inside a recover (it panics on some files)
// and hands the file to the fallback when it fails or finds no text at all.
func (p *parser) pdf() (*Document, error) {
	pages, lines, err := p.pdfNative()
	switch {
	case err == nil:
	case isEncrypted(err):
		return nil, errEncrypted(p.name)
	case apperr.Is(err, apperr.DocCorrupt) && p.opts.PDFFallback != nil:
		return p.pdfFallback(err)
	default:
		return nil, err // cancelled, too much text, or corrupt with no fallback
	}
	if len(lines) == 0 {
		if p.opts.PDFFallback != nil {
			return p.pdfFallback(errNoText(p.name))
		}
		return nil, errNoText(p.name)
	}
	if p.opts.PDFFallback != nil && garbled(lines) {
		// fonts the reader cannot map to Unicode (predefined CJK CMaps without a
		// ToUnicode table) come out as raw codes; PDFium knows those maps
		if doc, err := p.pdfFallback(errCorrupt(p.name, errGarbled)); err == nil {
			return doc, nil
		}
	}
	return &Document{Blocks: pdfBlocks(lines, p.opts.MaxText), Pages: pages}, nil
}

var errGarbled = errors.New("text decodes to control characters")

// garbled reports extracted text of which more than a quarter is control characters,
// replacement characters or private-use code points: raw font codes, not text.
func garbled(lines []pdfLine) bool {
	bad, total := 0, 0
	for _, l := range lines {
		for _, r := range l.text {
			total++
			if r < 0x20 && r != '\t' || r == 0x7f || r == unicode.ReplacementChar || r >= 0xE000 && r <= 0xF8FF {
				bad++
			}
		}
	}
	return bad*4 > total
}

func isEncrypted(err error) bool {
	return errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(strings.ToLower(err.Error()), "encrypt")
}

func (p *parser) pdfNative() (pages int, lines []pdfLine, err error) {
	defer func() {
		if x := recover(); x != nil {
			if stop, ok := x.(stopWalk); ok {
				pages, lines, err = 0, nil, stop.err
				if ae := passThrough(stop.err); ae != nil && ae.Params["name"] == nil {
					err = ae.WithParam("name", p.name)
				}
				return
			}
			pages, lines, err = 0, nil, errCorrupt(p.name, panicError(x))
		}
	}()
	r, err := pdf.NewReader(p.r, p.size)
	if err != nil {
		if isEncrypted(err) {
			return 0, nil, err
		}
		return 0, nil, errCorrupt(p.name, err)
	}
	list := pageList(r)
	var text int64
	for i, pg := range list {
		if err := p.ctx.Err(); err != nil {
			return 0, nil, canceled(err)
		}
		lines = append(lines, pageLines(i+1, walkPage(p.ctx, pg, &text, p.opts.MaxText))...)
		p.progress(i+1, len(list))
	}
	return len(list), lines, nil
}

// maxPDFPages bounds the page tree walk; no real document comes near it.
const maxPDFPages = 100000

// pageList walks the page tree once (the reader's Page(n) walks it from the root for each
// page, which is quadratic, and loops for ever on a tree whose kids point back at their
// parents). A node seen before is skipped, and every visit counts against a budget.
func pageList(r *pdf.Reader) []pdf.Page {
	var out []pdf.Page
	seen := map[string]bool{}
	budget := 4 * maxPDFPages
	var walk func(v pdf.Value, parent string, depth int)
	walk = func(v pdf.Value, parent string, depth int) {
		budget--
		id := objectID(v)
		if budget < 0 || depth > 64 || len(out) >= maxPDFPages || id != parent && seen[id] {
			return
		}
		seen[id] = true
		// some writers leave out /Type: a node with kids is a tree node, one with
		// contents a page
		kids := v.Key("Kids")
		switch typ := v.Key("Type").Name(); {
		case typ == "Pages" || typ == "" && kids.Len() > 0:
			for i := 0; i < kids.Len() && budget >= 0; i++ {
				walk(kids.Index(i), id, depth+1)
			}
		case typ == "Page" || typ == "" && !v.Key("Contents").IsNull():
			out = append(out, pdf.Page{V: v})
		}
	}
	walk(r.Trailer().Key("Root").Key("Pages"), "", 0)
	return out
}

// objectID names the indirect object a value was read from. The reader keeps it in an
// unexported field, which reflection may read (not change); a direct object carries its
// parent's id, which is why walk does not count a kid with its parent's id as seen.
func objectID(v pdf.Value) string {
	f := reflect.ValueOf(v).FieldByName("ptr")
	if !f.IsValid() {
		return ""
	}
	return fmt.Sprint(f)
}

// pageLines joins glyphs into lines: a new line where the baseline moves by more than half
// the font size, a space where the horizontal gap is wider than a fifth of it (never
// between two CJK characters, which are set without spaces).
func pageLines(page int, glyphs []pdf.Text) []pdfLine {
	var out []pdfLine
	var sb strings.Builder
	var cur pdfLine
	var lastEnd float64
	var lastRune rune
	flush := func() {
		if t := strings.TrimSpace(sb.String()); t != "" {
			cur.text = t
			out = append(out, cur)
		}
		sb.Reset()
	}
	for _, g := range glyphs {
		if g.S == "" {
			continue
		}
		size := math.Max(g.FontSize, 1)
		first := []rune(g.S)[0]
		switch {
		case sb.Len() == 0:
			cur = pdfLine{page: page, size: size, y: g.Y}
		case math.Abs(g.Y-cur.y) > size/2:
			prevY, prevSize := cur.y, cur.size
			flush()
			cur = pdfLine{page: page, size: size, y: g.Y}
			cur.gap = prevY-g.Y > 1.6*math.Max(prevSize, size) || g.Y > prevY
		case g.X-lastEnd > size/5 && !unicode.IsSpace(lastRune) && !unicode.IsSpace(first) && !(isCJK(lastRune) && isCJK(first)):
			sb.WriteByte(' ')
		}
		sb.WriteString(g.S)
		cur.size = math.Max(cur.size, size)
		lastEnd = g.X + g.W
		r := []rune(g.S)
		lastRune = r[len(r)-1]
	}
	flush()
	return out
}

// pdfBlocks turns lines into paragraphs and headings: a short line set clearly larger than
// the body text is a heading, its level by the rank of its size.
func pdfBlocks(lines []pdfLine, maxText int64) []Block {
	body := medianSize(lines)
	levels := headingSizes(lines, body)
	b := &builder{max: maxText}
	var para []string
	page := 0
	flush := func() {
		_ = b.add(KindParagraph, joinLines(para), 0, 0, 0)
		para = nil
	}
	for _, l := range lines {
		if l.page != page {
			flush()
			page = l.page
			b.pageBreak(page)
		}
		if lv := levels[sizeKey(l.size)]; lv > 0 && len([]rune(l.text)) <= 120 {
			flush()
			_ = b.add(KindHeading, l.text, lv, 0, 0)
			continue
		}
		if l.gap {
			flush()
		}
		para = append(para, l.text)
	}
	flush()
	return b.blocks
}

func sizeKey(s float64) int { return int(math.Round(s * 2)) }

// medianSize is the font size of most of the text, weighted by characters.
func medianSize(lines []pdfLine) float64 {
	count := map[int]int{}
	for _, l := range lines {
		count[sizeKey(l.size)] += len(l.text)
	}
	best, bestN := 0, -1
	for k, n := range count {
		if n > bestN || n == bestN && k < best {
			best, bestN = k, n
		}
	}
	return float64(best) / 2
}

// headingSizes ranks the sizes at least 1.2 times the body size: the largest is level 1.
func headingSizes(lines []pdfLine, body float64) map[int]int {
	seen := map[int]bool{}
	for _, l := range lines {
		if l.size >= body*1.2 {
			seen[sizeKey(l.size)] = true
		}
	}
	keys := make([]int, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(keys)))
	out := map[int]int{}
	for i, k := range keys {
		out[k] = min(i+1, 6)
	}
	return out
}

// joinLines rejoins a paragraph's lines: words hyphenated at a line end are mended, CJK
// lines are joined without a space.
func joinLines(lines []string) string {
	var sb strings.Builder
	for i, l := range lines {
		if i > 0 {
			prev := []rune(lines[i-1])
			last, first := prev[len(prev)-1], []rune(l)[0]
			switch {
			case last == '-' && unicode.IsLower(first):
				s := sb.String()
				sb.Reset()
				sb.WriteString(s[:len(s)-1])
			case isCJK(last) || isCJK(first):
			default:
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(l)
	}
	return sb.String()
}

// pdfFallback asks the configured extractor; its own typed errors win over the first one.
func (p *parser) pdfFallback(first error) (*Document, error) {
	pages, err := p.opts.PDFFallback(p.ctx, p.r, p.size)
	if err != nil {
		if ae := passThrough(err); ae != nil {
			return nil, ae
		}
		return nil, errCorrupt(p.name, fmt.Errorf("%w; fallback: %v", first, err))
	}
	b := &builder{max: p.opts.MaxText}
	for i, text := range pages {
		b.pageBreak(i + 1)
		for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
			if err := b.add(KindParagraph, para, 0, 0, 0); err != nil {
				return nil, err
			}
		}
	}
	if len(b.blocks) == 0 || onlyBreaks(b.blocks) {
		return nil, errNoText(p.name)
	}
	return &Document{Blocks: b.blocks, Pages: len(pages)}, nil
}

func onlyBreaks(bs []Block) bool {
	for _, b := range bs {
		if b.Kind != KindPageBreak {
			return false
		}
	}
	return true
}
