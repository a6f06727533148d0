package docparse

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

func TestMarkdownStructureAndLines(t *testing.T) {
	md := "---\ntitle: x\n---\n# 标题 Title\n\nFirst paragraph\nspans two lines.\n\n## Code\n\n```go\nfunc main() {}\n\n// still code\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSetext\n------\ntext under setext\n"
	doc := mustParse(t, "readme.md", []byte(md))
	want := "heading/1/p0/l4:标题 Title|\n" +
		"paragraph/0/p0/l6:First paragraph⏎spans two lines.|标题 Title\n" +
		"heading/2/p0/l9:Code|标题 Title\n" +
		"code/0/p0/l11:func main() {}⏎⏎// still code|标题 Title>Code\n" +
		"table/0/p0/l17:| a | b |⏎|---|---|⏎| 1 | 2 ||标题 Title>Code\n" +
		"heading/2/p0/l21:Setext|标题 Title\n" +
		"paragraph/0/p0/l23:text under setext|标题 Title>Setext\n"
	if got := blockSummary(doc); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if doc.Title != "标题 Title" || doc.Format != FormatMarkdown {
		t.Fatalf("title %q format %s", doc.Title, doc.Format)
	}
}

func TestTextEncodingsPagesAndLines(t *testing.T) {
	gbk, _ := simplifiedchinese.GB18030.NewEncoder().String("第一段中文。\n\n第二段\f第二页")
	utf16, _ := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().String("hello\r\nworld\r\n\r\n下一段")
	cases := []struct{ name, data, want string }{
		{"a.txt", "line one\nline two\n\n\nthird para", "paragraph/0/p0/l1:line one⏎line two|\nparagraph/0/p0/l5:third para|\n"},
		{"gbk.txt", gbk, "paragraph/0/p1/l1:第一段中文。|\nparagraph/0/p1/l3:第二段|\npage-break/0/p2/l0:|\nparagraph/0/p2/l3:第二页|\n"},
		{"utf16.txt", utf16, "paragraph/0/p0/l1:hello⏎world|\nparagraph/0/p0/l4:下一段|\n"},
		{"bom.txt", "\ufeffBOM text", "paragraph/0/p0/l1:BOM text|\n"},
		{"latin1.txt", "caf\xe9 cr\xe8me br\xfbl\xe9e \x93quoted\x94", "paragraph/0/p0/l1:café crème brûlée “quoted”|\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := mustParse(t, c.name, []byte(c.data))
			if got := blockSummary(doc); got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestCodeKeepsLines(t *testing.T) {
	src := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"你好\")\n}\n"
	doc := mustParse(t, "main.go", []byte(src))
	if doc.Format != FormatCode {
		t.Fatalf("format %s", doc.Format)
	}
	b := findBlock(t, doc, "func main")
	if b.Kind != KindCode || b.Line != 5 || b.EndLine != 7 || !strings.Contains(b.Text, "\tfmt.Println") {
		t.Fatalf("block %+v", b)
	}
}

func TestCSVGroupsRowsWithHeader(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("城市,人口\n")
	for i := 0; i < 50; i++ {
		sb.WriteString("\"Bei, jing\",21\n")
	}
	doc := mustParse(t, "cities.csv", []byte(sb.String()))
	if len(doc.Blocks) != 2 {
		t.Fatalf("%d blocks", len(doc.Blocks))
	}
	a, b := doc.Blocks[0], doc.Blocks[1]
	if a.Line != 2 || a.EndLine != 41 || b.Line != 42 || !strings.HasPrefix(b.Text, "城市 | 人口\nBei, jing | 21") {
		t.Fatalf("blocks %+v / %+v", a, b)
	}
	tsv := mustParse(t, "t.tsv", []byte("a\tb\n1\t2\n"))
	if tsv.Blocks[0].Text != "a | b\n1 | 2" {
		t.Fatalf("tsv %q", tsv.Blocks[0].Text)
	}
}

func TestHTMLBlocksAndHook(t *testing.T) {
	page := `<!doctype html><html><head><title>Page 标题</title><style>p{}</style><script>var x="<p>no</p>";</script></head>
<body><nav>menu</nav><h1>Main</h1><p>Wrapped
 text<br>next line</p><div>Div text <b>bold</b></div><h2>Sub</h2><pre>code
  kept</pre><table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table></body></html>`
	doc := mustParse(t, "page.html", []byte(page))
	want := "heading/1/p0/l0:Main|\nparagraph/0/p0/l0:Wrapped text⏎next line|Main\nparagraph/0/p0/l0:Div text bold|Main\n" +
		"heading/2/p0/l0:Sub|Main\ncode/0/p0/l0:code⏎  kept|Main>Sub\ntable/0/p0/l0:k | v⏎1 | 2|Main>Sub\n"
	if got := blockSummary(doc); got != want || doc.Title != "Page 标题" {
		t.Fatalf("title %q got\n%s\nwant\n%s", doc.Title, got, want)
	}
	hook := func(_ context.Context, b []byte) (string, string, error) {
		return "From hook", "# Hooked\n\nbody", nil
	}
	doc, err := parseBytes(t, "page.html", []byte(page), Options{HTML: hook})
	if err != nil || doc.Title != "From hook" || blockSummary(doc) != "heading/1/p0/l1:Hooked|\nparagraph/0/p0/l3:body|Hooked\n" {
		t.Fatalf("hook: %v %q\n%s", err, doc.Title, blockSummary(doc))
	}
}

func TestDetect(t *testing.T) {
	cases := []struct {
		name string
		head string
		want Format
	}{
		{"a.pdf", "%PDF-1.7\n", FormatPDF},
		{"a.txt", "%PDF-1.4\n", FormatPDF},
		{"noext", "junk\n%PDF-1.4\n", FormatPDF},
		{"a.docx", "PK\x03\x04....word/document.xml", FormatDOCX},
		{"x.zip", "PK\x03\x04....xl/workbook.xml", FormatXLSX},
		{"a.xlsx", "PK\x03\x04 other order", FormatXLSX},
		{"a.zip", "PK\x03\x04 other", FormatBinary},
		{"a.docx", "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest", FormatEncryptedOffice},
		{"a.doc", "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest", FormatBinary},
		{"a.md", "# hi", FormatMarkdown},
		{"a.md", "\x7fELF\x02\x01\x01\x00\x00\x00", FormatBinary},
		{"Makefile", "all:\n\tgo build", FormatCode},
		{"x.py", "print(1)", FormatCode},
		{"notes", "<!DOCTYPE html><html>", FormatHTML},
		{"notes", "plain words", FormatText},
		{"img.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", FormatBinary},
		{"gbk.txt", "\xb5\xda\xd2\xbb\xb6\xce", FormatText},
		{"latin1.txt", "\xe0 \xe9 \xe8 \xf9 \xe7 \xe0 ok", FormatText},
		{"ctl.txt", "\x01\x02\x03\x04\x05\x06abc", FormatBinary},
	}
	for _, c := range cases {
		if got := Detect(c.name, []byte(c.head)); got != c.want {
			t.Errorf("Detect(%q, %q) = %s, want %s", c.name, c.head, got, c.want)
		}
	}
}
