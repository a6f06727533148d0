package docparse

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// pdfText is one line a test places on a page.
type pdfText struct {
	size float64
	x, y float64
	text string
}

// writeCIDPDF writes a PDF whose text is set in a composite (Type0, Identity-H) font with
// a ToUnicode map: the way Chinese text is stored by word processors and LaTeX. The font
// itself is not embedded (a viewer substitutes one), which does not matter to extraction.
func writeCIDPDF(pages [][]pdfText) []byte { return writePDF(pages, false) }

// writeCIDPDFNoToUnicode leaves the ToUnicode map out, as files set with a predefined CJK
// CMap do: a reader without that CMap sees only the raw two-byte codes.
func writeCIDPDFNoToUnicode(pages [][]pdfText) []byte {
	return bytes.Replace(writePDF(pages, false), []byte(" /ToUnicode "), []byte(" /NoToUnicode "), 1)
}

// writePDF with inForm draws each page's text in a form XObject, as imposition tools and
// some report generators do, shifted up by 10 points through the form's matrix.
func writePDF(pages [][]pdfText, inForm bool) []byte {
	cids := map[rune]int{}
	for _, pg := range pages {
		for _, l := range pg {
			for _, r := range l.text {
				if _, ok := cids[r]; !ok {
					cids[r] = len(cids) + 1
				}
			}
		}
	}
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	catalog := add("")
	pagesObj := add("")
	font := add("")
	cidFont := add(`<< /Type /Font /Subtype /CIDFontType2 /BaseFont /DroidSansFallback /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 1000 /CIDToGIDMap /Identity >>`)
	cmap := toUnicodeCMap(cids)
	toUni := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap), cmap))
	objs[font-1] = fmt.Sprintf(`<< /Type /Font /Subtype /Type0 /BaseFont /DroidSansFallback /Encoding /Identity-H /DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>`, cidFont, toUni)
	var kids []string
	for _, pg := range pages {
		var content strings.Builder
		for _, l := range pg {
			fmt.Fprintf(&content, "BT /F1 %g Tf 1 0 0 1 %g %g Tm <", l.size, l.x, l.y)
			for _, r := range l.text {
				fmt.Fprintf(&content, "%04X", cids[r])
			}
			content.WriteString("> Tj ET\n")
		}
		c := content.String()
		xobj := ""
		if inForm {
			fm := add(fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 595 842] /Matrix [1 0 0 1 0 10] /Resources << /Font << /F1 %d 0 R >> >> /Length %d >>\nstream\n%s\nendstream", font, len(c), c))
			xobj = fmt.Sprintf(" /XObject << /Fm1 %d 0 R >>", fm)
			c = "q Q Q /Fm1 Do\n" // an unbalanced Q as well: readers must not fall over it
		}
		cs := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c), c))
		pg := add(fmt.Sprintf(`<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 %d 0 R >>%s >> /Contents %d 0 R >>`, pagesObj, font, xobj, cs))
		kids = append(kids, fmt.Sprintf("%d 0 R", pg))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj)
	objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, xref)
	return out.Bytes()
}

func toUnicodeCMap(cids map[rune]int) string {
	type pair struct {
		cid int
		r   rune
	}
	var ps []pair
	for r, c := range cids {
		ps = append(ps, pair{c, r})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].cid < ps[j].cid })
	var sb strings.Builder
	sb.WriteString("/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n")
	for i := 0; i < len(ps); i += 100 {
		chunk := ps[i:min(i+100, len(ps))]
		fmt.Fprintf(&sb, "%d beginbfchar\n", len(chunk))
		for _, p := range chunk {
			u := []rune{p.r}
			fmt.Fprintf(&sb, "<%04X> <%s>\n", p.cid, utf16Hex(u))
		}
		sb.WriteString("endbfchar\n")
	}
	sb.WriteString("endcmap CMapName currentdict /CMap defineresource pop end end")
	return sb.String()
}

func utf16Hex(rs []rune) string {
	var sb strings.Builder
	for _, r := range rs {
		if r >= 0x10000 {
			r -= 0x10000
			fmt.Fprintf(&sb, "%04X%04X", 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			continue
		}
		fmt.Fprintf(&sb, "%04X", r)
	}
	return sb.String()
}
