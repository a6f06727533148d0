package docparse

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
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
