package docparse

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunk is a piece of a document sized for embedding and search, with the span it came
// from for citations. Text includes the overlap carried from the chunk before.
type Chunk struct {
	Index       int      `json:"index"`
	Text        string   `json:"text"`
	Tokens      int      `json:"tokens"`
	HeadingPath []string `json:"headingPath,omitempty"`
	PageStart   int      `json:"pageStart,omitempty"`
	PageEnd     int      `json:"pageEnd,omitempty"`
	LineStart   int      `json:"lineStart,omitempty"`
	LineEnd     int      `json:"lineEnd,omitempty"`
	// BlockStart and BlockEnd index doc.Blocks, inclusive.
	BlockStart int `json:"blockStart"`
	BlockEnd   int `json:"blockEnd"`
}

// DefaultChunkSize and DefaultOverlap are in Tokens.
const (
	DefaultChunkSize = 512
	DefaultOverlap   = 64
)

// segment is a block, or a piece of one too large for a chunk.
type segment struct {
	text    string
	tokens  int
	block   int
	b       *Block
	line    int
	endLine int
}

// Chunks cuts a document on its structure: a heading always starts a new chunk (sections
// are never mixed), paragraphs, table rows and pages are packed while they fit in size
// tokens (see Tokens, so a Chinese chunk holds about as much meaning as an English one),
// and a block larger than size is cut at sentence ends. When a section goes on past a
// chunk, the next chunk repeats about overlap tokens of its end.
func Chunks(doc *Document, size, overlap int) []Chunk {
	if size <= 0 {
		size = DefaultChunkSize
	}
	overlap = max(0, min(overlap, size/2))
	c := &chunker{size: size, overlap: overlap}
	for i := range doc.Blocks {
		b := &doc.Blocks[i]
		if b.Kind == KindPageBreak {
			continue
		}
		// pieces leave room for the overlap that may precede them
		for _, s := range splitBlock(i, b, size-overlap) {
			c.add(s)
		}
	}
	c.flush(false)
	return c.out
}

type chunker struct {
	size, overlap int
	out           []Chunk
	cur           *Chunk
	parts         []string
	onlyHeadings  bool
	tail          segment // the last segment, for positions of the overlap
}

func (c *chunker) add(s segment) {
	heading := s.b.Kind == KindHeading
	switch {
	case c.cur == nil:
	case heading && !c.onlyHeadings:
		c.flush(false)
	case !heading && c.cur.Tokens+s.tokens > c.size:
		c.flush(true)
	}
	if c.cur == nil {
		c.start(s)
	}
	c.parts = append(c.parts, s.text)
	c.cur.Tokens += s.tokens
	c.extend(s)
	c.onlyHeadings = c.onlyHeadings && heading
	c.tail = s
}

func (c *chunker) start(s segment) {
	path := s.b.HeadingPath
	if s.b.Kind == KindHeading {
		path = append(append([]string(nil), s.b.HeadingPath...), s.b.Text)
	}
	c.cur = &Chunk{Index: len(c.out), HeadingPath: path, BlockStart: s.block,
		PageStart: s.b.Page, LineStart: s.line}
	c.onlyHeadings = true
}

func (c *chunker) extend(s segment) {
	ch := c.cur
	ch.BlockEnd = s.block
	if s.b.Page > 0 {
		if ch.PageStart == 0 {
			ch.PageStart = s.b.Page
		}
		ch.PageEnd = max(ch.PageEnd, s.b.Page)
	}
	if s.line > 0 && ch.LineStart == 0 {
		ch.LineStart = s.line
	}
	ch.LineEnd = max(ch.LineEnd, s.endLine)
}

// flush ends the current chunk; with carry, the next one starts with the overlap.
func (c *chunker) flush(carry bool) {
	if c.cur == nil {
		return
	}
	c.cur.Text = strings.Join(c.parts, "\n\n")
	c.out = append(c.out, *c.cur)
	prev := *c.cur
	c.cur, c.parts = nil, nil
	if !carry || c.overlap == 0 {
		return
	}
	tail := overlapTail(prev.Text, c.overlap)
	if tail == "" {
		return
	}
	t := c.tail
	c.cur = &Chunk{Index: len(c.out), HeadingPath: prev.HeadingPath, BlockStart: t.block,
		PageStart: t.b.Page, PageEnd: t.b.Page, LineStart: t.line, LineEnd: t.endLine, BlockEnd: t.block}
	c.parts = []string{tail}
	c.cur.Tokens = Tokens(tail)
	c.onlyHeadings = false
}

// overlapTail returns whole sentences from the end of text worth at most n tokens, or
// the last n tokens when one sentence is longer.
func overlapTail(text string, n int) string {
	sents := sentences(text)
	total, i := 0, len(sents)
	for i > 0 {
		t := Tokens(sents[i-1])
		if total+t > n {
			break
		}
		total += t
		i--
	}
	if i < len(sents) {
		return strings.TrimSpace(strings.Join(sents[i:], ""))
	}
	last := sents[len(sents)-1]
	return strings.TrimSpace(lastTokens(last, n))
}

// splitBlock returns the block as one segment, or in pieces of at most size tokens: tables
// and code by lines, prose by sentences, anything longer by a hard cut.
func splitBlock(i int, b *Block, size int) []segment {
	whole := segment{text: b.Text, tokens: Tokens(b.Text), block: i, b: b, line: b.Line, endLine: b.EndLine}
	if whole.tokens <= size {
		return []segment{whole}
	}
	var units []string
	if b.Kind == KindTable || b.Kind == KindCode {
		units = strings.SplitAfter(b.Text, "\n")
	} else {
		units = sentences(b.Text)
	}
	var out []segment
	var cur strings.Builder
	curTok, offset, startOff := 0, 0, 0
	emit := func() {
		if cur.Len() > 0 {
			out = append(out, pieceOf(whole, strings.TrimSpace(cur.String()), curTok, startOff, offset))
			cur.Reset()
			curTok = 0
		}
		startOff = offset
	}
	for _, u := range units {
		for _, part := range hardCut(u, size) {
			t := Tokens(part)
			if curTok+t > size {
				emit()
			}
			cur.WriteString(part)
			curTok += t
			offset += len(part)
		}
	}
	emit()
	return out
}

// pieceOf makes a segment of text[from:to] of the block, with its own lines.
func pieceOf(whole segment, text string, tokens, from, to int) segment {
	s := whole
	s.text, s.tokens = text, tokens
	if whole.line > 0 {
		s.line = whole.line + strings.Count(whole.b.Text[:from], "\n")
		s.endLine = whole.line + strings.Count(whole.b.Text[:to], "\n")
	}
	return s
}

// sentences splits after sentence-ending punctuation (Western followed by a space, CJK at
// once) and after line ends; the parts concatenate back to s.
func sentences(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		end := i + utf8.RuneLen(r)
		next, _ := utf8.DecodeRuneInString(s[end:])
		switch {
		case r == '\n', strings.ContainsRune("。！？；", r):
		case strings.ContainsRune(".!?;", r) && (end == len(s) || unicode.IsSpace(next)):
		default:
			continue
		}
		out = append(out, s[start:end])
		start = end
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// hardCut splits s into pieces of at most size tokens, preferring a space to cut at.
func hardCut(s string, size int) []string {
	var out []string
	for Tokens(s) > size {
		head := firstTokens(s, size)
		if sp := strings.LastIndexFunc(head, unicode.IsSpace); sp > len(head)/2 {
			head = head[:sp+1]
		}
		if head == "" {
			break
		}
		out = append(out, head)
		s = s[len(head):]
	}
	return append(out, s)
}

// runeStarts lists the byte offsets where s can be cut, len(s) included.
func runeStarts(s string) []int {
	out := make([]int, 0, len(s)+1)
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}

// firstTokens returns the longest prefix of s worth at most n tokens (Tokens grows with
// the prefix, so a binary search over cut points finds it).
func firstTokens(s string, n int) string {
	cuts := runeStarts(s)
	lo, hi := 0, len(cuts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if Tokens(s[:cuts[mid]]) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return s[:cuts[lo]]
}

// lastTokens returns the longest suffix of s worth at most n tokens.
func lastTokens(s string, n int) string {
	cuts := runeStarts(s)
	lo, hi := 0, len(cuts)-1 // index of the cut where the suffix starts
	for lo < hi {
		mid := (lo + hi) / 2
		if Tokens(s[cuts[mid]:]) <= n {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return s[cuts[lo]:]
}
