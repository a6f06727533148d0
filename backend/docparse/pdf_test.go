package docparse

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

func TestPDFFromGhostscriptKeepsPagesAndHeadings(t *testing.T) {
	data := ghostscript(t, psPages([][]string{
		{"Introduction to Cairn", "Cairn is a desktop chat application. It reads documents of many", "kinds and finds them by word and by meaning."},
		{"Second Page Heading", "Text on the second page (with parentheses)."},
	}))
	doc := mustParse(t, "report.pdf", data)
	if doc.Format != FormatPDF || doc.Pages != 2 || doc.Title != "Introduction to Cairn" {
		t.Fatalf("format %s pages %d title %q", doc.Format, doc.Pages, doc.Title)
	}
	h := findBlock(t, doc, "Second Page Heading")
	if h.Kind != KindHeading || h.Page != 2 || h.Level != 1 {
		t.Fatalf("heading block %+v", h)
	}
	p := findBlock(t, doc, "many kinds")
	if p.Kind != KindParagraph || p.Page != 1 || strings.Join(p.HeadingPath, ">") != "Introduction to Cairn" {
		t.Fatalf("paragraph block %+v", p)
	}
	if !strings.Contains(p.Text, "It reads documents of many kinds and finds them") {
		t.Fatalf("lines not rejoined with spaces: %q", p.Text)
	}
	if b := findBlock(t, doc, "parentheses"); b.Page != 2 {
		t.Fatalf("page 2 text on page %d", b.Page)
	}
}

func TestPDFChineseTextThroughToUnicode(t *testing.T) {
	data := writeCIDPDF([][]pdfText{
		{{20, 72, 760, "知识库简介"}, {11, 72, 730, "知识库中文测试：你好世界。"}, {11, 72, 716, "第二行继续同一段落。"}},
		{{11, 72, 760, "第二页的内容。"}},
	})
	doc := mustParse(t, "中文.pdf", data)
	if doc.Title != "知识库简介" {
		t.Fatalf("title %q\n%s", doc.Title, blockSummary(doc))
	}
	p := findBlock(t, doc, "你好世界")
	if p.Text != "知识库中文测试：你好世界。第二行继续同一段落。" {
		t.Fatalf("CJK lines must join without spaces: %q", p.Text)
	}
	if b := findBlock(t, doc, "第二页"); b.Page != 2 {
		t.Fatalf("page %d", b.Page)
	}
}

func TestPDFBadInputs(t *testing.T) {
	good := ghostscript(t, psPages([][]string{{"Title", "Body text here."}}))
	cases := []struct {
		name string
		data []byte
		code apperr.Code
	}{
		{"truncated", good[:len(good)/2], apperr.DocCorrupt},
		{"header only", []byte("%PDF-1.7\n%%EOF\n"), apperr.DocCorrupt},
		{"garbage after header", append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("\x13\x37garbage"), 500)...), apperr.DocCorrupt},
		{"no text", writeCIDPDF([][]pdfText{{}}), apperr.DocNoText},
		{"encrypted", encryptedPDF(), apperr.DocEncrypted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseBytes(t, "x.pdf", c.data, Options{})
			wantCode(t, err, c.code)
		})
	}
}

// encryptedPDF is a PDF whose trailer names a standard security handler with a user
// password the reader does not have (the /U entry does not match the empty password).
func encryptedPDF() []byte {
	base := string(writeCIDPDF([][]pdfText{{{11, 72, 700, "secret"}}}))
	enc := "<< /Filter /Standard /V 2 /R 3 /Length 128 /P -44 /O <" + strings.Repeat("11", 32) + "> /U <" + strings.Repeat("22", 32) + "> >>"
	base = strings.Replace(base, "/Root 1 0 R >>", "/Root 1 0 R /Encrypt "+enc+" /ID [<"+strings.Repeat("33", 16)+"> <"+strings.Repeat("33", 16)+">] >>", 1)
	return []byte(base)
}

func TestPDFPageTreeCycleEnds(t *testing.T) {
	data := writeCIDPDF([][]pdfText{{{11, 72, 700, "looping tree"}}})
	// make the page tree list itself among its kids: a reader following kids blindly loops
	looped := strings.Replace(string(data), "/Kids [", "/Kids [2 0 R ", 1)
	looped = fixXref(looped)
	done := make(chan error, 1)
	go func() {
		doc, err := parseBytes(t, "loop.pdf", []byte(looped), Options{})
		if err == nil && (doc.Pages != 1 || strings.Count(doc.Text(), "looping tree") != 1) {
			err = fmt.Errorf("the page was read %d times", strings.Count(doc.Text(), "looping tree"))
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("parsing a cyclic page tree did not end")
	}
}

// fixXref rewrites the offsets of a PDF written by writeCIDPDF after an edit.
func fixXref(s string) string {
	head, _, _ := strings.Cut(s, "xref\n")
	var out strings.Builder
	out.WriteString(head)
	xref := out.Len()
	n := strings.Count(head, " 0 obj\n")
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", n+1)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&out, "%010d 00000 n \n", strings.Index(head, fmt.Sprintf("\n%d 0 obj\n", i))+1)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", n+1, xref)
	return out.String()
}

func TestObjectIDTellsObjectsApart(t *testing.T) {
	data := writeCIDPDF([][]pdfText{{{11, 72, 700, "one"}}, {{11, 72, 700, "two"}}})
	doc := mustParse(t, "two.pdf", data)
	if doc.Pages != 2 || findBlock(t, doc, "two").Page != 2 {
		t.Fatalf("pages %d\n%s", doc.Pages, blockSummary(doc))
	}
}

func TestPDFTextInsideFormXObject(t *testing.T) {
	data := writePDF([][]pdfText{{{20, 72, 760, "表单标题"}, {11, 72, 730, "Text drawn by a form XObject."}}}, true)
	doc := mustParse(t, "form.pdf", data)
	if b := findBlock(t, doc, "drawn by a form"); b.Kind != KindParagraph || strings.Join(b.HeadingPath, ">") != "表单标题" {
		t.Fatalf("block %+v\n%s", b, blockSummary(doc))
	}
}

func TestPDFTextCapStopsTheWalk(t *testing.T) {
	var page []pdfText
	for i := 0; i < 50; i++ {
		page = append(page, pdfText{11, 72, float64(800 - i*14), strings.Repeat("many words ", 8)})
	}
	data := writeCIDPDF([][]pdfText{page, page, page})
	fallback := func(context.Context, io.ReaderAt, int64) ([]string, error) {
		t.Error("a file over the text cap must not be handed to the fallback")
		return nil, nil
	}
	_, err := parseBytes(t, "big.pdf", data, Options{MaxText: 2000, PDFFallback: fallback})
	wantCode(t, err, apperr.DocTooLarge)
}

// flatePDF is a one-page PDF whose content stream is deflated from content.
func flatePDF(t *testing.T, content []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(content)
	zw.Close()
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String()),
	}
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n")
	var offs []int
	for i, o := range objs {
		offs = append(offs, out.Len())
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return out.Bytes()
}

func TestPDFContentStreamBomb(t *testing.T) {
	// 65 MiB of operands with no operator: the reader's interpreter would stack them all
	bombed := flatePDF(t, bytes.Repeat([]byte("1 "), 65<<19))
	if len(bombed) > 1<<20 {
		t.Fatalf("the bomb is %d bytes, not a bomb", len(bombed))
	}
	_, err := parseBytes(t, "bomb.pdf", bombed, Options{})
	wantCode(t, err, apperr.DocUnpackedTooLarge)
	small := flatePDF(t, []byte("BT ET"))
	_, err = parseBytes(t, "empty.pdf", small, Options{})
	wantCode(t, err, apperr.DocNoText)
}

func TestPDFGarbledTextGoesToTheFallback(t *testing.T) {
	data := writeCIDPDFNoToUnicode([][]pdfText{{{11, 72, 700, "没有映射表的中文文字内容"}}})
	called := false
	fb := func(context.Context, io.ReaderAt, int64) ([]string, error) {
		called = true
		return []string{"没有映射表的中文文字内容"}, nil
	}
	doc, err := parseBytes(t, "cmap.pdf", data, Options{PDFFallback: fb})
	if err != nil || !called || doc.Blocks[0].Text != "没有映射表的中文文字内容" {
		t.Fatalf("called %v err %v doc %+v", called, err, doc)
	}
	// readable text is never sent there
	called = false
	if _, err := parseBytes(t, "ok.pdf", writeCIDPDF([][]pdfText{{{11, 72, 700, "有映射表"}}}), Options{PDFFallback: fb}); err != nil || called {
		t.Fatalf("readable text went to the fallback (%v, %v)", called, err)
	}
}

// predefinedCMapPDF sets text in a CID font with a predefined CMap and no ToUnicode map,
// as Chinese PDFs from many Windows tools are: the codes are UTF-16 or GBK.
func predefinedCMapPDF(encoding string, code []byte) []byte {
	content := fmt.Sprintf("BT /F1 12 Tf 1 0 0 1 72 700 Tm <%X> Tj ET", code)
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /" + encoding + " /DescendantFonts [6 0 R] >>",
		"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 4 >> >>",
	}
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n")
	var offs []int
	for i, o := range objs {
		offs = append(offs, out.Len())
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return out.Bytes()
}

func TestPDFPredefinedCJKCMaps(t *testing.T) {
	const text = "预定义编码的中文"
	u16, _ := unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewEncoder().Bytes([]byte(text))
	gbk, _ := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(text))
	for _, c := range []struct {
		enc  string
		code []byte
	}{{"UniGB-UTF16-H", u16}, {"UniGB-UCS2-H", u16}, {"GBK-EUC-H", gbk}} {
		doc := mustParse(t, c.enc+".pdf", predefinedCMapPDF(c.enc, c.code))
		if got := doc.Text(); got != text {
			t.Errorf("%s: got %q", c.enc, got)
		}
	}
}

func TestPDFProgressPerPage(t *testing.T) {
	data := writeCIDPDF([][]pdfText{{{11, 72, 700, "a"}}, {{11, 72, 700, "b"}}, {{11, 72, 700, "c"}}})
	var got []string
	_, err := parseBytes(t, "p.pdf", data, Options{Progress: func(done, total int) { got = append(got, fmt.Sprintf("%d/%d", done, total)) }})
	if err != nil || strings.Join(got, " ") != "1/3 2/3 3/3" {
		t.Fatalf("%v %v", err, got)
	}
}
