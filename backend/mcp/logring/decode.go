// Package logring keeps what an MCP server writes to stderr: decoded into UTF-8 lines
// whatever the encoding (UTF-8, UTF-16 with or without BOM, GBK/GB18030 from Windows
// tools), held in a bounded in-memory ring for the Settings live log and appended to a
// file under <dataDir>/logs/mcp/.
package logring

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// MaxLineBytes caps one line; longer output is split.
const MaxLineBytes = 16 << 10

type encMode int

const (
	modeSniff   encMode = iota // nothing seen yet
	modeAuto                   // byte stream: each line UTF-8 if valid, else GB18030
	modeUTF16LE                // the whole stream is UTF-16 little endian
	modeUTF16BE
)

// Decoder is an io.Writer that turns a raw byte stream into text lines. It is safe for
// concurrent use; Flush emits a final line without newline.
type Decoder struct {
	emit func(line string)

	mu      sync.Mutex
	mode    encMode
	pending []byte // bytes of the current, unfinished line (modeAuto) or undecoded tail (UTF-16)
	text    []rune // decoded runes of the current line (UTF-16)
	hi      uint16 // a high surrogate waiting for its pair (UTF-16)
}

// NewDecoder returns a decoder that calls emit for every complete line (without the line
// terminator). emit must not call back into the decoder.
func NewDecoder(emit func(line string)) *Decoder { return &Decoder{emit: emit} }

// Write decodes p; it never fails.
func (d *Decoder) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := len(p)
	if d.mode == modeSniff {
		d.pending = append(d.pending, p...)
		if len(d.pending) < 4 && !bytes.ContainsRune(d.pending, '\n') {
			return n, nil // too little to tell yet
		}
		p = d.sniff()
	}
	switch d.mode {
	case modeUTF16LE, modeUTF16BE:
		d.writeUTF16(p)
	default:
		d.writeBytes(p)
	}
	return n, nil
}

// sniff decides the stream's encoding from its first bytes and returns them, minus a BOM,
// for decoding.
func (d *Decoder) sniff() []byte {
	b := d.pending
	d.pending = nil
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		d.mode = modeAuto
		return b[3:]
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		d.mode = modeUTF16LE
		return b[2:]
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		d.mode = modeUTF16BE
		return b[2:]
	case len(b) >= 4 && b[0] != 0 && b[1] == 0 && b[2] != 0 && b[3] == 0:
		d.mode = modeUTF16LE // ASCII text in UTF-16LE without BOM (Windows tools)
	case len(b) >= 4 && b[0] == 0 && b[1] != 0 && b[2] == 0 && b[3] != 0:
		d.mode = modeUTF16BE
	default:
		d.mode = modeAuto
	}
	return b
}

func (d *Decoder) writeBytes(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		d.pending = append(d.pending, seg...)
		for len(d.pending) >= MaxLineBytes {
			cut := utf8Cut(d.pending, MaxLineBytes)
			d.emit(decodeLine(d.pending[:cut]))
			d.pending = append(d.pending[:0], d.pending[cut:]...)
		}
		if i < 0 {
			return
		}
		d.emit(decodeLine(d.pending))
		d.pending = d.pending[:0]
		p = p[i+1:]
	}
}

// utf8Cut is where to split b near n without cutting a UTF-8 sequence in half.
func utf8Cut(b []byte, n int) int {
	if !utf8.Valid(b) {
		return n
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	if n == 0 {
		return MaxLineBytes
	}
	return n
}

func (d *Decoder) writeUTF16(p []byte) {
	b := append(d.pending, p...)
	d.pending = nil
	for len(b) >= 2 {
		var u uint16
		if d.mode == modeUTF16LE {
			u = uint16(b[0]) | uint16(b[1])<<8
		} else {
			u = uint16(b[0])<<8 | uint16(b[1])
		}
		b = b[2:]
		var r rune
		switch {
		case d.hi != 0 && utf16.IsSurrogate(rune(u)) && u >= 0xDC00:
			r = utf16.DecodeRune(rune(d.hi), rune(u))
			d.hi = 0
		case u >= 0xD800 && u < 0xDC00:
			d.hi = u
			continue
		default:
			if d.hi != 0 {
				d.text = append(d.text, utf8.RuneError)
				d.hi = 0
			}
			r = rune(u)
		}
		if r == '\n' {
			d.emit(strings.TrimSuffix(string(d.text), "\r"))
			d.text = d.text[:0]
			continue
		}
		d.text = append(d.text, r)
		if len(d.text) >= MaxLineBytes/2 {
			d.emit(string(d.text))
			d.text = d.text[:0]
		}
	}
	d.pending = append(d.pending, b...)
}

// Flush emits what is left of an unfinished last line.
func (d *Decoder) Flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.mode {
	case modeUTF16LE, modeUTF16BE:
		if len(d.text) > 0 {
			d.emit(string(d.text))
			d.text = d.text[:0]
		}
	default:
		if len(d.pending) > 0 {
			d.emit(decodeLine(d.pending))
			d.pending = d.pending[:0]
		}
	}
}

// decodeLine returns a line as UTF-8: as is when it is valid UTF-8, otherwise decoded as
// GB18030 (a superset of GBK and GB2312, what Chinese Windows tools write).
func decodeLine(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if utf8.Valid(b) {
		return string(b)
	}
	if s, err := simplifiedchinese.GB18030.NewDecoder().Bytes(b); err == nil && utf8.Valid(s) {
		return string(s)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
