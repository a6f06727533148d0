package ops

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // image formats sandbox_read describes
	_ "image/jpeg"
	_ "image/png"
	"io"
	"net/http"
	"os"
	"strings"
	"unicode/utf8"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/webp"

	"github.com/cairn-app/cairn/backend/docparse"
)

// Bounds of a read.
const (
	DefaultLimit  = 2000      // lines of one read when the request says none
	MaxLimit      = 20000     // lines one read may ask for
	MaxLineChars  = 2000      // a longer line is cut
	MaxReadOutput = 256 << 10 // bytes of numbered lines one read returns
	MaxDecoded    = 64 << 20  // largest file decoded whole (UTF-16, documents) or counted to its end
	MaxImageBytes = 5 << 20   // largest image returned as an image
)

// ReadRequest asks for lines offset..offset+limit-1 of a file (1-based).
type ReadRequest struct {
	Common
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// ReadResult is a file as the model reads it: numbered lines of text (a document's
// extracted text), or what an image or a binary file is.
type ReadResult struct {
	Path string `json:"path"`
	// Kind is text, document (PDF, Office, EPUB: its extracted text), image or binary.
	Kind string `json:"kind"`
	// Format is the document's format, the image's type or the binary's MIME type.
	Format   string `json:"format,omitempty"`
	Pages    int    `json:"pages,omitempty"`
	Encoding string `json:"encoding,omitempty"` // utf-8, utf-8-bom, utf-16le, utf-16be
	Size     int64  `json:"size"`
	// Content is `cat -n` style lines, or a description (image, binary).
	Content string `json:"content"`
	From    int    `json:"from,omitempty"`
	To      int    `json:"to,omitempty"`
	// Lines is the number of lines of the file; 0 when it was too large to count.
	Lines int    `json:"lines,omitempty"`
	More  bool   `json:"more,omitempty"` // lines after To
	Cut   int    `json:"cut,omitempty"`  // lines cut at MaxLineChars
	Image *Image `json:"image,omitempty"`
}

// Image is a picture a read returns whole, for a model that sees images.
type Image struct {
	MIMEType string `json:"mimeType"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Data     []byte `json:"data,omitempty"`
}

func read(w *workspace, r ReadRequest) (ReadResult, error) {
	rel, err := w.rel(r.Path)
	if err != nil {
		return ReadResult{}, err
	}
	if r.Offset < 0 || r.Limit < 0 || r.Limit > MaxLimit {
		return ReadResult{}, fail(CodeBadRequest, r.Path, "offset must be at least 1 and limit between 1 and %d", MaxLimit)
	}
	f, fi, err := w.openRead(rel)
	if err != nil {
		return ReadResult{}, err
	}
	defer f.Close()
	head := make([]byte, 8192)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return ReadResult{}, fail(CodeIO, show(rel), "read %s: %v", show(rel), err)
	}
	head = head[:n]
	res := ReadResult{Path: show(rel), Size: fi.Size()}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ReadResult{}, fail(CodeIO, show(rel), "read %s: %v", show(rel), err)
	}
	span := lineSpan{offset: max(r.Offset, 1), limit: r.Limit}
	if span.limit == 0 {
		span.limit = DefaultLimit
	}
	enc := detectEncoding(head)
	if mime := http.DetectContentType(head); strings.HasPrefix(mime, "image/") && !strings.Contains(mime, "svg") && enc.name == "utf-8" {
		return readImage(f, res, mime)
	}
	switch format := docparse.Detect(rel, head); {
	case enc.name != "utf-8":
		return readDecoded(f, res, enc, span)
	case format == docparse.FormatBinary || format == docparse.FormatEncryptedOffice:
		res.Kind, res.Format = "binary", http.DetectContentType(head)
		res.Content = fmt.Sprintf("%s is a binary file (%s, %d bytes); it is not shown.", res.Path, res.Format, res.Size)
		return res, nil
	case isDocument(format):
		return readDocument(f, res, format, span)
	}
	res.Kind, res.Encoding = "text", enc.label()
	p := span.number(f, fi.Size() <= MaxDecoded)
	p.into(&res)
	return res, nil
}

func isDocument(f docparse.Format) bool {
	switch f {
	case docparse.FormatPDF, docparse.FormatDOCX, docparse.FormatPPTX, docparse.FormatXLSX, docparse.FormatODT, docparse.FormatEPUB:
		return true
	}
	return false
}

func readImage(f *os.File, res ReadResult, mime string) (ReadResult, error) {
	res.Kind, res.Format = "image", mime
	cfg, _, err := image.DecodeConfig(f)
	if err != nil {
		res.Content = fmt.Sprintf("%s looks like an image (%s, %d bytes) but cannot be decoded: %v.", res.Path, mime, res.Size, err)
		return res, nil
	}
	res.Image = &Image{MIMEType: mime, Width: cfg.Width, Height: cfg.Height}
	res.Content = fmt.Sprintf("%s is an image: %s, %d×%d pixels, %d bytes.", res.Path, mime, cfg.Width, cfg.Height, res.Size)
	if res.Size <= MaxImageBytes {
		if _, err := f.Seek(0, io.SeekStart); err == nil {
			if data, err := io.ReadAll(io.LimitReader(f, MaxImageBytes+1)); err == nil && len(data) <= MaxImageBytes {
				res.Image.Data = data
			}
		}
	} else {
		res.Content += " It is too large to be shown."
	}
	return res, nil
}

func readDocument(f *os.File, res ReadResult, format docparse.Format, span lineSpan) (ReadResult, error) {
	if res.Size > MaxDecoded {
		return res, fail(CodeTooLarge, res.Path, "%s is a %s of %d bytes; documents over %d bytes are not read", res.Path, format, res.Size, MaxDecoded)
	}
	doc, err := docparse.Parse(context.Background(), res.Path, f, res.Size, docparse.Options{MaxSize: MaxDecoded})
	if err != nil {
		return res, fail(CodeEncoding, res.Path, "%s could not be read as %s: %v", res.Path, format, err)
	}
	res.Kind, res.Format, res.Pages = "document", string(format), doc.Pages
	p := span.number(strings.NewReader(doc.Text()), true)
	p.into(&res)
	return res, nil
}

func readDecoded(f *os.File, res ReadResult, enc encoding, span lineSpan) (ReadResult, error) {
	if res.Size > MaxDecoded {
		return res, fail(CodeTooLarge, res.Path, "%s is %s text of %d bytes; over %d bytes it is not decoded", res.Path, enc.name, res.Size, MaxDecoded)
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return res, fail(CodeIO, res.Path, "read %s: %v", res.Path, err)
	}
	text, err := enc.decode(raw)
	if err != nil {
		return res, fail(CodeEncoding, res.Path, "%s is not valid %s: %v", res.Path, enc.name, err)
	}
	res.Kind, res.Encoding = "text", enc.name
	p := span.number(strings.NewReader(text), true)
	p.into(&res)
	return res, nil
}

// lineSpan is the lines a read asks for.
type lineSpan struct{ offset, limit int }

// page is the numbered lines of one read.
type page struct {
	text           strings.Builder
	from, to, seen int
	counted, more  bool
	cut            int
}

func (p *page) into(r *ReadResult) {
	r.Content, r.From, r.To, r.More, r.Cut = p.text.String(), p.from, p.to, p.more, p.cut
	if p.counted {
		r.Lines = p.seen
	}
}

// number writes the span's lines of src `cat -n` style; countAll reads on to the end to
// count the lines (for a file small enough).
func (s lineSpan) number(src io.Reader, countAll bool) *page {
	br := bufio.NewReaderSize(src, 64<<10)
	p := &page{counted: true}
	for {
		line, cut, end := readLine(br, MaxLineChars*utf8.UTFMax)
		if end && line == nil {
			break
		}
		p.seen++
		n := p.seen
		switch {
		case n < s.offset:
		case n < s.offset+s.limit && p.text.Len() < MaxReadOutput:
			if p.from == 0 {
				p.from = n
			}
			p.to = n
			text, c := cutLine(line, cut)
			if c {
				p.cut++
			}
			fmt.Fprintf(&p.text, "%6d\t%s\n", n, text)
		default:
			p.more = true
			if !countAll {
				p.counted = false
				return p
			}
		}
		if end {
			break
		}
	}
	return p
}

// readLine reads one line without its end (\n, \r\n), keeping at most max bytes of it;
// end is true at the end of the input (line is nil when nothing was left).
func readLine(br *bufio.Reader, limit int) (line []byte, cut, end bool) {
	got := false
	for {
		chunk, err := br.ReadSlice('\n')
		got = got || len(chunk) > 0
		body := bytes.TrimSuffix(chunk, []byte("\n"))
		if room := limit - len(line); len(body) > room {
			cut, body = true, body[:max(room, 0)]
		}
		line = append(line, body...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !got {
			return nil, false, true
		}
		return bytes.TrimSuffix(line, []byte("\r")), cut, err != nil
	}
}

// cutLine is a line as shown: valid UTF-8, at most MaxLineChars characters.
func cutLine(line []byte, cut bool) (string, bool) {
	s := strings.ToValidUTF8(string(line), "\uFFFD")
	if utf8.RuneCountInString(s) > MaxLineChars {
		i, n := 0, 0
		for i = range s {
			if n == MaxLineChars {
				break
			}
			n++
		}
		s, cut = s[:i], true
	}
	if cut {
		s += " … [line cut]"
	}
	return s, cut
}
