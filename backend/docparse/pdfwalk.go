package docparse

import (
	"context"
	"io"
	"math"
	"strings"
	"unicode/utf16"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/ledongthuc/pdf"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// The reader's own Page.Content keeps one record per glyph, parses a font's character map
// again at every font change, skips text inside form XObjects and cannot be stopped. This
// walker interprets the content stream itself: one record per shown string, fonts parsed
// once per page, forms followed (nested at most maxFormDepth), and the extracted bytes and
// the context checked as it goes.

const maxFormDepth = 8

// mat is a PDF transformation matrix [a b c d e f].
type mat [6]float64

var identity = mat{1, 0, 0, 1, 0, 0}

// mul returns m × n.
func (m mat) mul(n mat) mat {
	return mat{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func translate(x, y float64) mat { return mat{1, 0, 0, 1, x, y} }

// textState is the part of the graphics state that places text.
type textState struct {
	ctm, tm, tlm          mat
	tc, tw, th, tl, trise float64
	size                  float64
	font                  *walkFont
}

// walkFont is a font with what showing a string needs, read once.
type walkFont struct {
	enc    pdf.TextEncoding
	cid    bool // two-byte codes (Type0)
	first  int
	widths []float64
	dw     float64
}

func (f *walkFont) width(code int) float64 {
	if f.cid {
		return f.dw
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) {
		return f.widths[i]
	}
	return f.dw
}

// stopWalk carries the reason a walk ended early through the interpreter's callback: a
// panic is the only way out of pdf.Interpret, and pdfNative recovers exactly this type.
type stopWalk struct{ err error }

type pageWalker struct {
	ctx    context.Context
	out    []pdf.Text
	text   *int64
	max    int64
	ops    int
	xforms int
}

// walkPage returns the strings shown on a page with their positions.
func walkPage(ctx context.Context, page pdf.Page, text *int64, max int64) []pdf.Text {
	w := &pageWalker{ctx: ctx, text: text, max: max}
	contents := page.V.Key("Contents")
	if contents.IsNull() {
		return nil
	}
	w.run(contents, page.Resources(), identity, 0)
	return w.out
}

func (w *pageWalker) font(res pdf.Value, name string) *walkFont {
	v := res.Key("Font").Key(name)
	f := &pdf.Font{V: v}
	wf := &walkFont{enc: f.Encoder(), cid: v.Key("Subtype").Name() == "Type0", dw: 1000}
	if wf.enc == nil {
		wf.enc = nopEnc{}
	}
	if wf.cid && v.Key("ToUnicode").IsNull() {
		if enc := predefinedCMap(v.Key("Encoding").Name()); enc != nil {
			wf.enc = enc
		}
	}
	if wf.cid {
		if d := v.Key("DescendantFonts").Index(0).Key("DW"); !d.IsNull() {
			wf.dw = d.Float64()
		}
		return wf
	}
	wf.first, wf.dw = int(v.Key("FirstChar").Int64()), 0
	ws := v.Key("Widths")
	for i := 0; i < ws.Len() && i < 65536; i++ {
		wf.widths = append(wf.widths, ws.Index(i).Float64())
	}
	return wf
}

// predefinedCMap decodes the predefined CJK CMaps whose codes are Unicode (Uni*-UCS2-*,
// Uni*-UTF16-*) or GB text (GBK-EUC-*, GB-EUC-*, GBK2K-*), which Chinese and Japanese PDFs
// use without a ToUnicode map and the reader does not know; nil for the rest.
func predefinedCMap(name string) pdf.TextEncoding {
	switch {
	case strings.HasPrefix(name, "Uni") && (strings.Contains(name, "UCS2") || strings.Contains(name, "UTF16")):
		return utf16Enc{}
	case strings.HasPrefix(name, "GBK-EUC") || strings.HasPrefix(name, "GB-EUC") || strings.HasPrefix(name, "GBK2K") || strings.HasPrefix(name, "GBpc-EUC"):
		return gbEnc{}
	}
	return nil
}

type utf16Enc struct{}

func (utf16Enc) Decode(raw string) string {
	u := make([]uint16, 0, len(raw)/2)
	for i := 0; i+1 < len(raw); i += 2 {
		u = append(u, uint16(raw[i])<<8|uint16(raw[i+1]))
	}
	return string(utf16.Decode(u))
}

type gbEnc struct{}

func (gbEnc) Decode(raw string) string {
	out, err := simplifiedchinese.GB18030.NewDecoder().String(raw)
	if err != nil {
		return strings.ToValidUTF8(raw, "\uFFFD")
	}
	return out
}

type nopEnc struct{}

func (nopEnc) Decode(raw string) string { return raw }

// maxContentStream caps the inflated size of one page's (or form's) content: the reader's
// interpreter keeps every operand until its operator comes, so a deflate bomb of numbers
// would otherwise fill memory. Real pages stay far below it.
const maxContentStream = 64 << 20

// contentSize inflates a content stream (or an array of them) without keeping it, up to
// the cap; the reader decompresses again for the interpreter, which costs little next to
// interpreting.
func contentSize(strm pdf.Value, limit int64) int64 {
	parts := []pdf.Value{strm}
	if strm.Kind() == pdf.Array {
		parts = parts[:0]
		for i := 0; i < strm.Len() && i < 10000; i++ {
			parts = append(parts, strm.Index(i))
		}
	}
	var n int64
	for _, p := range parts {
		rc := p.Reader()
		c, _ := io.Copy(io.Discard, io.LimitReader(rc, limit-n+1))
		rc.Close()
		if n += c; n > limit {
			break
		}
	}
	return n
}

// run interprets one content stream (the page's, or a form's) under ctm.
func (w *pageWalker) run(strm, res pdf.Value, ctm mat, depth int) {
	if contentSize(strm, maxContentStream) > maxContentStream {
		panic(stopWalk{apperr.New(apperr.DocUnpackedTooLarge, "a PDF content stream inflates past %d bytes", maxContentStream)})
	}
	g := textState{ctm: ctm, tm: identity, tlm: identity, th: 1}
	var stack []textState
	fonts := map[string]*walkFont{}
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		args := popAll(stk)
		w.tick()
		switch op {
		case "q":
			if len(stack) < 256 {
				stack = append(stack, g)
			}
		case "Q":
			if n := len(stack); n > 0 {
				g, stack = stack[n-1], stack[:n-1]
			}
		case "cm":
			if m, ok := matArgs(args); ok {
				g.ctm = m.mul(g.ctm)
			}
		case "Do":
			w.form(res, args, g.ctm, depth)
		default:
			w.textOp(&g, op, args, res, fonts)
		}
	})
}

// textOp applies a text operator to g, showing text when it is one that shows text.
func (w *pageWalker) textOp(g *textState, op string, args []pdf.Value, res pdf.Value, fonts map[string]*walkFont) {
	num := func(i int) float64 {
		if i < len(args) {
			return args[i].Float64()
		}
		return 0
	}
	switch op {
	case "BT":
		g.tm, g.tlm = identity, identity
	case "Tc":
		g.tc = num(0)
	case "Tw":
		g.tw = num(0)
	case "Tz":
		g.th = num(0) / 100
	case "TL":
		g.tl = num(0)
	case "Ts":
		g.trise = num(0)
	case "Tf":
		if len(args) == 2 {
			name := args[0].Name()
			if fonts[name] == nil {
				fonts[name] = w.font(res, name)
			}
			g.font, g.size = fonts[name], num(1)
		}
	case "TD":
		g.tl = -num(1)
		fallthrough
	case "Td":
		g.tlm = translate(num(0), num(1)).mul(g.tlm)
		g.tm = g.tlm
	case "Tm":
		if m, ok := matArgs(args); ok {
			g.tm, g.tlm = m, m
		}
	case "T*":
		g.tlm = translate(0, -g.tl).mul(g.tlm)
		g.tm = g.tlm
	case "\"", "'":
		if op == "\"" && len(args) == 3 {
			g.tw, g.tc, args = num(0), num(1), args[2:]
		}
		g.tlm = translate(0, -g.tl).mul(g.tlm)
		g.tm = g.tlm
		fallthrough
	case "Tj":
		if len(args) == 1 {
			w.show(g, args[0].RawString())
		}
	case "TJ":
		if len(args) == 1 {
			w.showArray(g, args[0])
		}
	}
}

func (w *pageWalker) showArray(g *textState, arr pdf.Value) {
	for i := 0; i < arr.Len(); i++ {
		x := arr.Index(i)
		if x.Kind() == pdf.String {
			w.show(g, x.RawString())
			continue
		}
		g.tm = translate(-x.Float64()/1000*g.size*g.th, 0).mul(g.tm)
	}
}

// show records one string at the current text position and advances past it.
func (w *pageWalker) show(g *textState, raw string) {
	if g.font == nil || raw == "" {
		return
	}
	trm := mat{g.size * g.th, 0, 0, g.size, 0, g.trise}.mul(g.tm).mul(g.ctm)
	step := 1
	if g.font.cid {
		step = 2
	}
	adv := 0.0
	for i := 0; i+step <= len(raw); i += step {
		code := int(raw[i])
		if step == 2 {
			code = code<<8 | int(raw[i+1])
		}
		tx := g.font.width(code)/1000*g.size + g.tc
		if step == 1 && code == ' ' {
			tx += g.tw
		}
		adv += tx * g.th
	}
	s := g.font.enc.Decode(raw)
	*w.text += int64(len(s))
	if w.max > 0 && *w.text > w.max {
		panic(stopWalk{errTextTooLarge(w.max)})
	}
	scale := math.Hypot(g.tm[0], g.tm[1]) * math.Hypot(g.ctm[0], g.ctm[1])
	w.out = append(w.out, pdf.Text{FontSize: math.Hypot(trm[0], trm[1]), X: trm[4], Y: trm[5], W: adv * scale, S: s})
	g.tm = translate(adv, 0).mul(g.tm)
}

// form follows a form XObject drawn with Do, under its own matrix and resources.
func (w *pageWalker) form(res pdf.Value, args []pdf.Value, ctm mat, depth int) {
	if len(args) != 1 || depth >= maxFormDepth || w.xforms > 10000 {
		return
	}
	x := res.Key("XObject").Key(args[0].Name())
	if x.Key("Subtype").Name() != "Form" {
		return
	}
	w.xforms++
	m := identity
	if mv := x.Key("Matrix"); mv.Len() == 6 {
		for i := range m {
			m[i] = mv.Index(i).Float64()
		}
	}
	fres := x.Key("Resources")
	if fres.IsNull() {
		fres = res
	}
	w.run(x, fres, m.mul(ctm), depth+1)
}

// tick checks the context now and then: a content stream can be long.
func (w *pageWalker) tick() {
	w.ops++
	if w.ops&1023 == 0 {
		if err := w.ctx.Err(); err != nil {
			panic(stopWalk{canceled(err)})
		}
	}
}

func popAll(stk *pdf.Stack) []pdf.Value {
	n := stk.Len()
	args := make([]pdf.Value, n)
	for i := n - 1; i >= 0; i-- {
		args[i] = stk.Pop()
	}
	return args
}

func matArgs(args []pdf.Value) (mat, bool) {
	if len(args) != 6 {
		return mat{}, false
	}
	var m mat
	for i := range m {
		m[i] = args[i].Float64()
	}
	return m, true
}
