// Package docparse turns documents (PDF, Office, OpenDocument, EPUB, spreadsheets, HTML,
// Markdown, text, CSV and source code) into ordered blocks that keep their page, line and
// heading positions, and cuts those blocks into chunks for search and citation. Knowledge
// bases and chat attachments share it, so every hostile-file defence lives here once: size
// caps, zip-bomb caps, XML nesting caps, panics of third-party parsers turned into errors,
// and one typed error (an *apperr.Error with a doc_* code) for every way a file can fail.
package docparse

import (
	"context"
	"io"
	"strings"
)

// Kind says what a block is; chunking treats headings and page breaks as boundaries.
type Kind string

const (
	KindHeading   Kind = "heading"
	KindParagraph Kind = "paragraph"
	KindTable     Kind = "table"
	KindCode      Kind = "code"
	KindPageBreak Kind = "page-break"
)

// Block is one unit of a document in reading order.
type Block struct {
	Kind Kind   `json:"kind"`
	Text string `json:"text"`
	// Level is 1..6 for headings, 0 otherwise.
	Level int `json:"level,omitempty"`
	// Page is 1-based: the PDF page, the slide of a presentation, the sheet of a workbook,
	// the page counted from explicit page breaks in a word-processor file or form feeds in
	// text. 0 when the format has no pages.
	Page int `json:"page,omitempty"`
	// Line and EndLine are the 1-based source lines (text, Markdown, code, CSV rows,
	// spreadsheet rows); 0 when the format has no lines.
	Line    int `json:"line,omitempty"`
	EndLine int `json:"endLine,omitempty"`
	// HeadingPath is the titles of the enclosing headings, outermost first (for a heading,
	// its parents only).
	HeadingPath []string `json:"headingPath,omitempty"`
}

// Document is what Parse returns.
type Document struct {
	Title  string  `json:"title"`
	Format Format  `json:"format"`
	Pages  int     `json:"pages,omitempty"`
	Blocks []Block `json:"blocks"`
}

// Text is the document's text, blocks separated by blank lines (page breaks as form feeds).
func (d *Document) Text() string {
	var b strings.Builder
	for i, bl := range d.Blocks {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if bl.Kind == KindPageBreak {
			b.WriteString("\f")
			continue
		}
		b.WriteString(bl.Text)
	}
	return b.String()
}

// HTMLConverter turns an HTML page into Markdown (the readability path of the web fetcher);
// when set in Options, HTML goes through it and then the Markdown parser.
type HTMLConverter func(ctx context.Context, page []byte) (title, markdown string, err error)

// PDFExtractor reads the text of each page of a PDF that the built-in reader cannot; a
// returned *apperr.Error (doc_encrypted, doc_corrupt) is passed on as it is.
type PDFExtractor func(ctx context.Context, r io.ReaderAt, size int64) (pages []string, err error)

// Options bound the work a file can cause. Zero fields take the defaults below.
type Options struct {
	// MaxSize is the largest input accepted, in bytes.
	MaxSize int64
	// MaxUnpacked caps the bytes decompressed from an archive format (DOCX, XLSX, …).
	MaxUnpacked int64
	// MaxEntries caps the entries of an archive.
	MaxEntries int
	// MaxRatio caps the decompression ratio of any archive entry larger than 1 MiB.
	MaxRatio int64
	// MaxXMLDepth caps element nesting in XML and HTML.
	MaxXMLDepth int
	// MaxText caps the extracted text, in bytes.
	MaxText int64
	// HTML, when set, converts HTML to Markdown before parsing (readability).
	HTML HTMLConverter
	// Progress, when set, is called as the pages of a PDF (slides, sheets) are read, for
	// a progress bar of one large file; it must return quickly.
	Progress func(done, total int)
	// PDFFallback reads PDFs the built-in reader fails on; nil means none. The PDFium
	// extractor of docparse/pdfium fits: pdfium.New(cacheDir).Extract.
	PDFFallback PDFExtractor
}

// Defaults used for zero Options fields.
const (
	DefaultMaxSize     = 256 << 20
	DefaultMaxUnpacked = 512 << 20
	DefaultMaxEntries  = 20000
	DefaultMaxRatio    = 200
	DefaultMaxXMLDepth = 256
	DefaultMaxText     = 64 << 20
)

func (o Options) withDefaults() Options {
	if o.MaxSize <= 0 {
		o.MaxSize = DefaultMaxSize
	}
	if o.MaxUnpacked <= 0 {
		o.MaxUnpacked = DefaultMaxUnpacked
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxRatio <= 0 {
		o.MaxRatio = DefaultMaxRatio
	}
	if o.MaxXMLDepth <= 0 {
		o.MaxXMLDepth = DefaultMaxXMLDepth
	}
	if o.MaxText <= 0 {
		o.MaxText = DefaultMaxText
	}
	return o
}

// Parse reads the document named name (its extension is a hint; the content decides) from
// r. Every error is an *apperr.Error: doc_unsupported_type, doc_encrypted, doc_too_large,
// doc_unpacked_too_large, doc_corrupt, doc_no_text or canceled.
func Parse(ctx context.Context, name string, r io.ReaderAt, size int64, opts Options) (doc *Document, err error) {
	opts = opts.withDefaults()
	if size > opts.MaxSize {
		return nil, errTooLarge(name, size, opts.MaxSize)
	}
	if err := ctx.Err(); err != nil {
		return nil, canceled(err)
	}
	head := make([]byte, 8192)
	n, rerr := r.ReadAt(head, 0)
	if rerr != nil && rerr != io.EOF && int64(n) < min(size, int64(len(head))) {
		return nil, errCorrupt(name, rerr)
	}
	format := Detect(name, head[:n])
	p := &parser{ctx: ctx, name: name, r: r, size: size, opts: opts}
	defer func() {
		if x := recover(); x != nil {
			doc, err = nil, errCorrupt(name, panicError(x))
		}
	}()
	doc, err = p.parse(format)
	if err != nil {
		return nil, err
	}
	doc.Format = format
	if doc.Title == "" {
		doc.Title = firstHeading(doc.Blocks)
	}
	return doc, nil
}

func (p *parser) progress(done, total int) {
	if p.opts.Progress != nil {
		p.opts.Progress(done, total)
	}
}

// parser carries one call's input and limits through the format readers.
type parser struct {
	ctx  context.Context
	name string
	r    io.ReaderAt
	size int64
	opts Options
}

func (p *parser) parse(f Format) (*Document, error) {
	switch f {
	case FormatPDF:
		return p.pdf()
	case FormatDOCX:
		return p.docx()
	case FormatPPTX:
		return p.pptx()
	case FormatXLSX:
		return p.xlsx()
	case FormatODT:
		return p.odt()
	case FormatEPUB:
		return p.epub()
	case FormatEncryptedOffice:
		return nil, errEncrypted(p.name)
	}
	data, err := p.readAll()
	if err != nil {
		return nil, err
	}
	switch f {
	case FormatHTML:
		return p.html(data)
	case FormatMarkdown:
		return parseMarkdown(decodeText(data)), nil
	case FormatCSV:
		return p.csv(decodeText(data))
	case FormatCode:
		return parseCode(decodeText(data)), nil
	case FormatText:
		return parseText(decodeText(data)), nil
	}
	return nil, errUnsupported(p.name, string(f))
}

func (p *parser) readAll() ([]byte, error) {
	if p.size > p.opts.MaxText {
		return nil, errTooLarge(p.name, p.size, p.opts.MaxText)
	}
	buf := make([]byte, p.size)
	n, err := p.r.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return nil, errCorrupt(p.name, err)
	}
	if int64(n) > p.opts.MaxText {
		return nil, errTooLarge(p.name, int64(n), p.opts.MaxText)
	}
	return buf[:n], nil
}

func firstHeading(bs []Block) string {
	for _, b := range bs {
		if b.Kind == KindHeading {
			return b.Text
		}
	}
	return ""
}

// headingTracker keeps the path of enclosing headings while blocks are emitted in order.
type headingTracker struct {
	path   []string
	levels []int
}

// heading records a heading and returns the path of its parents.
func (h *headingTracker) heading(level int, text string) []string {
	for len(h.levels) > 0 && h.levels[len(h.levels)-1] >= level {
		h.levels = h.levels[:len(h.levels)-1]
		h.path = h.path[:len(h.path)-1]
	}
	parents := h.current()
	h.levels = append(h.levels, level)
	h.path = append(h.path, text)
	return parents
}

// current returns a copy of the path, nil when empty.
func (h *headingTracker) current() []string {
	if len(h.path) == 0 {
		return nil
	}
	return append([]string(nil), h.path...)
}

// builder appends blocks, tracking headings and the running page.
type builder struct {
	blocks []Block
	h      headingTracker
	page   int
	text   int64
	max    int64
}

func (b *builder) add(k Kind, text string, level, line, endLine int) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	b.text += int64(len(text))
	if b.max > 0 && b.text > b.max {
		return errTextTooLarge(b.max)
	}
	bl := Block{Kind: k, Text: text, Level: level, Page: b.page, Line: line, EndLine: endLine}
	if k == KindHeading {
		bl.HeadingPath = b.h.heading(level, text)
	} else {
		bl.HeadingPath = b.h.current()
	}
	b.blocks = append(b.blocks, bl)
	return nil
}

// pageBreak starts page n (1-based); the first page needs no break block.
func (b *builder) pageBreak(n int) {
	if n > 1 {
		b.blocks = append(b.blocks, Block{Kind: KindPageBreak, Page: n, HeadingPath: b.h.current()})
	}
	b.page = n
}
