package docparse

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

// decodeText returns UTF-8: a BOM picks UTF-8 or UTF-16, invalid UTF-8 is read as GB18030
// (Chinese text saved by older Windows tools) when its high bytes pair up as Chinese text
// does, else as Windows-1252 (Western text of the same tools), and line ends become "\n".
func decodeText(b []byte) string {
	var s string
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		s = string(b[3:])
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}), bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		dec := unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewDecoder()
		out, err := dec.Bytes(b)
		if err != nil {
			out = b
		}
		s = string(out)
	case utf8.Valid(b):
		s = string(b)
	case looksGB(b):
		out, err := simplifiedchinese.GB18030.NewDecoder().Bytes(b)
		if err != nil {
			out = []byte(strings.ToValidUTF8(string(b), "\uFFFD"))
		}
		s = string(out)
	default:
		out, err := charmap.Windows1252.NewDecoder().Bytes(b)
		if err != nil {
			out = []byte(strings.ToValidUTF8(string(b), "\uFFFD"))
		}
		s = string(out)
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// looksGB reports bytes whose non-ASCII bytes come in pairs of two high bytes, as GBK
// hanzi do; Windows-1252 text has lone high bytes between ASCII letters ("caf\xe9").
func looksGB(b []byte) bool {
	pairs, lone := 0, 0
	for i := 0; i < len(b); i++ {
		if b[i] < 0x80 {
			continue
		}
		if i+1 < len(b) && b[i] >= 0x81 && b[i+1] >= 0x80 {
			pairs++
			i++
			continue
		}
		lone++
	}
	return pairs > 3*lone
}

// parseText splits on blank lines into paragraphs and on form feeds into pages.
func parseText(s string) *Document {
	b := &builder{}
	if strings.Contains(s, "\f") {
		b.pageBreak(1) // form feeds make pages: number them from the first
	}
	lines := strings.Split(s, "\n")
	page, start := 1, 0
	var para []string
	flush := func(end int) {
		if len(para) > 0 {
			_ = b.add(KindParagraph, strings.Join(para, "\n"), 0, start+1, end)
			para = nil
		}
	}
	for i, ln := range lines {
		for strings.Contains(ln, "\f") {
			before, after, _ := strings.Cut(ln, "\f")
			if strings.TrimSpace(before) != "" {
				if len(para) == 0 {
					start = i
				}
				para = append(para, before)
			}
			flush(i + 1)
			page++
			b.pageBreak(page)
			ln = after
		}
		if strings.TrimSpace(ln) == "" {
			flush(i)
			continue
		}
		if len(para) == 0 {
			start = i
		}
		para = append(para, ln)
	}
	flush(len(lines))
	return &Document{Blocks: b.blocks, Pages: pagesOf(page)}
}

func pagesOf(n int) int {
	if n <= 1 {
		return 0
	}
	return n
}

// parseCode keeps source as code blocks separated at blank lines, with their lines.
func parseCode(s string) *Document {
	d := parseText(s)
	for i := range d.Blocks {
		if d.Blocks[i].Kind == KindParagraph {
			d.Blocks[i].Kind = KindCode
		}
	}
	return d
}

var (
	atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextLine = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	fenceLine  = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	tableLine  = regexp.MustCompile(`^\s*\|.*\|\s*$`)
)

// mdState is the Markdown reader's position: the paragraph or table being collected.
type mdState struct {
	b     *builder
	lines []string
	kind  Kind
	buf   []string
	start int
}

func (m *mdState) flush(end int) {
	if len(m.buf) > 0 {
		_ = m.b.add(m.kind, strings.Join(m.buf, "\n"), 0, m.start+1, end)
	}
	m.buf = nil
}

func (m *mdState) collect(kind Kind, i int, ln string) {
	if len(m.buf) > 0 && m.kind != kind {
		m.flush(i)
	}
	if len(m.buf) == 0 {
		m.kind, m.start = kind, i
	}
	m.buf = append(m.buf, ln)
}

// parseMarkdown reads ATX and setext headings, fenced code, pipe tables and paragraphs.
func parseMarkdown(s string) *Document {
	s = stripFrontMatter(s)
	m := &mdState{b: &builder{}, lines: strings.Split(s, "\n")}
	for i := 0; i < len(m.lines); i++ {
		ln := m.lines[i]
		switch {
		case fenceLine.MatchString(ln):
			m.flush(i)
			i = m.fence(i)
		case atxHeading.MatchString(ln):
			m.flush(i)
			g := atxHeading.FindStringSubmatch(ln)
			_ = m.b.add(KindHeading, g[2], len(g[1]), i+1, i+1)
		case m.kind == KindParagraph && len(m.buf) == 1 && setextLine.MatchString(ln):
			level := 2
			if strings.Contains(ln, "=") {
				level = 1
			}
			text, start := m.buf[0], m.start
			m.buf = nil
			_ = m.b.add(KindHeading, text, level, start+1, i+1)
		case strings.TrimSpace(ln) == "":
			m.flush(i)
		case tableLine.MatchString(ln):
			m.collect(KindTable, i, ln)
		default:
			m.collect(KindParagraph, i, ln)
		}
	}
	m.flush(len(m.lines))
	return &Document{Blocks: m.b.blocks}
}

// fence reads a fenced code block starting at line i and returns its last line.
func (m *mdState) fence(i int) int {
	marker := fenceLine.FindStringSubmatch(m.lines[i])[1]
	j := i + 1
	for ; j < len(m.lines); j++ {
		if strings.HasPrefix(strings.TrimLeft(m.lines[j], " "), marker) {
			break
		}
	}
	end := min(j, len(m.lines))
	_ = m.b.add(KindCode, strings.Join(m.lines[i+1:end], "\n"), 0, i+1, min(j+1, len(m.lines)))
	return j
}

// stripFrontMatter blanks a leading YAML block, keeping the line count for positions.
func stripFrontMatter(s string) string {
	if !strings.HasPrefix(s, "---\n") {
		return s
	}
	end := strings.Index(s[4:], "\n---")
	if end < 0 {
		return s
	}
	end += 4 + 4
	return strings.Repeat("\n", strings.Count(s[:end], "\n")) + s[end:]
}

// csvRowsPerBlock keeps a table block small enough to chunk while the header row is
// repeated in each, so that a chunk of rows still says what its columns are.
const csvRowsPerBlock = 40

func (p *parser) csv(s string) (*Document, error) {
	r := csv.NewReader(strings.NewReader(s))
	r.FieldsPerRecord, r.LazyQuotes, r.ReuseRecord = -1, true, false
	if sniffTSV(s) {
		r.Comma = '\t'
	}
	b := &builder{max: p.opts.MaxText}
	var header string
	var rows []string
	first := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, errCorrupt(p.name, err)
		}
		line, _ := r.FieldPos(0)
		row := strings.Join(rec, " | ")
		if header == "" {
			header = row
			continue
		}
		if len(rows) == 0 {
			first = line
		}
		rows = append(rows, row)
		if len(rows) == csvRowsPerBlock {
			if err := b.add(KindTable, header+"\n"+strings.Join(rows, "\n"), 0, first, line); err != nil {
				return nil, err
			}
			rows = nil
		}
	}
	last := strings.Count(s, "\n") + 1
	if len(rows) > 0 || len(b.blocks) == 0 {
		if err := b.add(KindTable, header+"\n"+strings.Join(rows, "\n"), 0, max(first, 1), last); err != nil {
			return nil, err
		}
	}
	return &Document{Blocks: b.blocks}, nil
}

func sniffTSV(s string) bool {
	first, _, _ := strings.Cut(s, "\n")
	return strings.Count(first, "\t") > strings.Count(first, ",")
}

// DecodeText is a text file's content as UTF-8 with its lines as they are (UTF-16 with a
// byte-order mark and GB18030 recognised, as Parse reads them): attachments page through
// the file by its own line numbers, which the blocks of Parse do not keep.
func DecodeText(b []byte) string { return decodeText(b) }

// LineBased reports whether a format's text is the file's own lines (text, Markdown,
// source code, CSV), so line numbers of the decoded file mean what an editor shows.
func LineBased(f Format) bool {
	switch f {
	case FormatText, FormatMarkdown, FormatCode, FormatCSV:
		return true
	}
	return false
}
