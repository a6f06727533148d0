package docparse

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

const ctTypes = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`

func docxFile(t testing.TB, body string) []byte {
	styles := `<?xml version="1.0"?><w:styles xmlns:w="w">
<w:style w:type="paragraph" w:styleId="1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
<w:style w:type="paragraph" w:styleId="Custom"><w:name w:val="My Outline"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>
</w:styles>`
	core := `<?xml version="1.0"?><cp:coreProperties xmlns:cp="cp" xmlns:dc="dc"><dc:title>年度报告 Annual Report</dc:title></cp:coreProperties>`
	return makeZip(t,
		zipFile{name: "[Content_Types].xml", body: ctTypes},
		zipFile{name: "word/document.xml", body: `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="w"><w:body>` + body + `</w:body></w:document>`},
		zipFile{name: "word/styles.xml", body: styles},
		zipFile{name: "docProps/core.xml", body: core})
}

func wp(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

func TestDOCXHeadingsTablesPages(t *testing.T) {
	body := wp("1", "第一章 概述") + wp("", "这是中文段落。") +
		`<w:p><w:r><w:t>Split </w:t></w:r><w:r><w:tab/><w:t>runs &amp; entities</w:t></w:r></w:p>` +
		wp("Heading2", "Details") +
		`<w:tbl><w:tr><w:tc>` + wp("", "Name") + `</w:tc><w:tc>` + wp("", "值") + `</w:tc></w:tr>` +
		`<w:tr><w:tc>` + wp("", "alpha") + wp("", "beta") + `</w:tc><w:tc>` + wp("", "1") + `</w:tc></w:tr></w:tbl>` +
		`<w:p><w:r><w:br w:type="page"/></w:r></w:p>` + wp("Custom", "Outline three") + wp("", "On page two.")
	doc := mustParse(t, "report.docx", docxFile(t, body))
	want := "heading/1/p1/l0:第一章 概述|\n" +
		"paragraph/0/p1/l0:这是中文段落。|第一章 概述\n" +
		"paragraph/0/p1/l0:Split \truns & entities|第一章 概述\n" +
		"heading/2/p1/l0:Details|第一章 概述\n" +
		"table/0/p1/l0:Name | 值⏎alpha beta | 1|第一章 概述>Details\n" +
		"page-break/0/p2/l0:|第一章 概述>Details\n" +
		"heading/3/p2/l0:Outline three|第一章 概述>Details\n" +
		"paragraph/0/p2/l0:On page two.|第一章 概述>Details>Outline three\n"
	if got := blockSummary(doc); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if doc.Title != "年度报告 Annual Report" || doc.Pages != 2 {
		t.Fatalf("title %q pages %d", doc.Title, doc.Pages)
	}
}

func TestPPTXSlidesInPresentationOrder(t *testing.T) {
	slide := func(title, body string) string {
		return `<p:sld xmlns:p="p" xmlns:a="a"><p:cSld><p:spTree>` +
			`<p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>` + title + `</a:t></a:r></a:p></p:txBody></p:sp>` +
			`<p:sp><p:nvSpPr><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>` + body + `</a:t></a:r></a:p></p:txBody></p:sp>` +
			`</p:spTree></p:cSld></p:sld>`
	}
	data := makeZip(t,
		zipFile{name: "[Content_Types].xml", body: ctTypes},
		zipFile{name: "ppt/presentation.xml", body: `<p:presentation xmlns:p="p" xmlns:r="r"><p:sldIdLst><p:sldId id="256" r:id="rId3"/><p:sldId id="257" r:id="rId2"/></p:sldIdLst></p:presentation>`},
		zipFile{name: "ppt/_rels/presentation.xml.rels", body: `<Relationships><Relationship Id="rId2" Target="slides/slide1.xml"/><Relationship Id="rId3" Target="slides/slide2.xml"/></Relationships>`},
		zipFile{name: "ppt/slides/slide1.xml", body: slide("Second", "后面的幻灯片")},
		zipFile{name: "ppt/slides/slide2.xml", body: slide("首页标题", "First body")})
	doc := mustParse(t, "deck.pptx", data)
	want := "heading/1/p1/l0:首页标题|\nparagraph/0/p1/l0:First body|首页标题\npage-break/0/p2/l0:|首页标题\n" +
		"heading/1/p2/l0:Second|\nparagraph/0/p2/l0:后面的幻灯片|Second\n"
	if got := blockSummary(doc); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestODTHeadingsAndTable(t *testing.T) {
	content := `<?xml version="1.0"?><office:document-content xmlns:office="o" xmlns:text="t" xmlns:table="tb"><office:body><office:text>
<text:h text:outline-level="1">Überblick 概览</text:h>
<text:p>Erster<text:s text:c="2"/>Absatz<text:note><text:note-body><text:p>footnote</text:p></text:note-body></text:note> 中文。</text:p>
<text:h text:outline-level="2">Tabelle</text:h>
<table:table><table:table-row><table:table-cell><text:p>a</text:p></table:table-cell><table:table-cell><text:p>b</text:p></table:table-cell></table:table-row></table:table>
</office:text></office:body></office:document-content>`
	data := makeZip(t,
		zipFile{name: "mimetype", body: "application/vnd.oasis.opendocument.text", store: true},
		zipFile{name: "content.xml", body: content},
		zipFile{name: "meta.xml", body: `<office:document-meta xmlns:office="o" xmlns:dc="dc"><office:meta><dc:title>ODT Title</dc:title></office:meta></office:document-meta>`})
	doc := mustParse(t, "notes.odt", data)
	want := "heading/1/p0/l0:Überblick 概览|\nparagraph/0/p0/l0:Erster  Absatz 中文。|Überblick 概览\n" +
		"heading/2/p0/l0:Tabelle|Überblick 概览\ntable/0/p0/l0:a | b|Überblick 概览>Tabelle\n"
	if got := blockSummary(doc); got != want || doc.Title != "ODT Title" {
		t.Fatalf("title %q got\n%s\nwant\n%s", doc.Title, got, want)
	}
}

func epubFile(t testing.TB, extra ...zipFile) []byte {
	files := []zipFile{
		{name: "mimetype", body: "application/epub+zip", store: true},
		{name: "META-INF/container.xml", body: `<container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>`},
		{name: "OEBPS/content.opf", body: `<package><metadata><dc:title xmlns:dc="dc">红楼梦 Book</dc:title></metadata><manifest><item id="c1" href="text/ch1.xhtml"/><item id="c2" href="text/ch2.xhtml"/></manifest><spine><itemref idref="c2"/><itemref idref="c1"/></spine></package>`},
		{name: "OEBPS/text/ch1.xhtml", body: `<html><body><h1>Chapter One</h1><p>It was&nbsp;late.</p></body></html>`},
		{name: "OEBPS/text/ch2.xhtml", body: `<html><body><h1>序章</h1><p>开篇第一段。</p></body></html>`},
	}
	return makeZip(t, append(files, extra...)...)
}

func TestEPUBSpineOrder(t *testing.T) {
	doc := mustParse(t, "book.epub", epubFile(t))
	want := "heading/1/p0/l0:序章|\nparagraph/0/p0/l0:开篇第一段。|序章\nheading/1/p0/l0:Chapter One|\nparagraph/0/p0/l0:It was late.|Chapter One\n"
	if got := blockSummary(doc); got != want || doc.Title != "红楼梦 Book" {
		t.Fatalf("title %q got\n%s\nwant\n%s", doc.Title, got, want)
	}
}

func TestXLSXSheetsRowsAndHeader(t *testing.T) {
	f := excelize.NewFile()
	f.SetCellValue("Sheet1", "A1", "名称")
	f.SetCellValue("Sheet1", "B1", "Amount")
	for i := 2; i <= 45; i++ {
		f.SetCellValue("Sheet1", fmt.Sprintf("A%d", i), fmt.Sprintf("item-%d", i))
		f.SetCellValue("Sheet1", fmt.Sprintf("B%d", i), i*10)
	}
	f.NewSheet("数据")
	f.SetCellValue("数据", "A1", "only header")
	f.SetDocProps(&excelize.DocProperties{Title: "Budget"})
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	doc := mustParse(t, "budget.xlsx", buf.Bytes())
	if doc.Title != "Budget" || doc.Pages != 2 {
		t.Fatalf("title %q pages %d", doc.Title, doc.Pages)
	}
	first := findBlock(t, doc, "item-2 | 20")
	if first.Kind != KindTable || first.Line != 2 || first.EndLine != 41 || !strings.HasPrefix(first.Text, "名称 | Amount\n") {
		t.Fatalf("first group %+v", first)
	}
	second := findBlock(t, doc, "item-45 | 450")
	if second.Line != 42 || second.EndLine != 45 || !strings.HasPrefix(second.Text, "名称 | Amount\n") {
		t.Fatalf("second group %+v", second)
	}
	h := findBlock(t, doc, "only header")
	if h.Page != 2 || strings.Join(h.HeadingPath, ">") != "数据" {
		t.Fatalf("second sheet %+v", h)
	}
}
