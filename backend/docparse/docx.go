package docparse

import (
	"encoding/xml"
	"io"
	"regexp"
	"strconv"
	"strings"
)

var headingStyleName = regexp.MustCompile(`(?i)^heading\s*([1-9])$`)

// docxStyles maps a paragraph style id to its heading level (0: not a heading). Localised
// Word files name styles "1", "2", … with the English name "heading 1" inside, so names and
// outline levels decide, not ids.
func (a *archive) docxStyles() (map[string]int, error) {
	levels := map[string]int{}
	rc, err := a.open("word/styles.xml")
	if err != nil {
		return levels, nil
	}
	defer rc.Close()
	x := a.p.xmlReader(rc)
	id := ""
	for {
		t, err := x.next()
		if err == io.EOF {
			return levels, nil
		}
		if err != nil {
			return nil, err
		}
		se, ok := t.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "style":
			id = attr(se, "styleId")
		case "name":
			if g := headingStyleName.FindStringSubmatch(attr(se, "val")); g != nil && id != "" {
				levels[id], _ = strconv.Atoi(g[1])
			} else if strings.EqualFold(attr(se, "val"), "title") && id != "" {
				levels[id] = 1
			}
		case "outlineLvl":
			if n, err := strconv.Atoi(attr(se, "val")); err == nil && id != "" && n < 9 && levels[id] == 0 {
				levels[id] = n + 1
			}
		}
	}
}

// docxState follows a document.xml walk: the paragraph, table and page being read.
type docxState struct {
	b       *builder
	styles  map[string]int
	para    strings.Builder
	level   int
	inText  bool
	tables  int
	cell    []string
	row     []string
	rows    []string
	page    int
	pending int
}

func (p *parser) docx() (*Document, error) {
	a, err := p.openArchive()
	if err != nil {
		return nil, err
	}
	if !a.has("word/document.xml") {
		return nil, errCorrupt(p.name, errMissing)
	}
	styles, err := a.docxStyles()
	if err != nil {
		return nil, err
	}
	rc, err := a.open("word/document.xml")
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	s := &docxState{b: &builder{max: p.opts.MaxText}, styles: styles, page: 1}
	s.b.pageBreak(1)
	x := p.xmlReader(rc)
	if err := x.each(s.token); err != nil {
		return nil, err
	}
	doc := &Document{Blocks: s.b.blocks, Title: a.xmlFirst("docProps/core.xml", "title"), Pages: pagesOf(s.page)}
	return doc, nil
}

func (s *docxState) token(t xml.Token) error {
	switch v := t.(type) {
	case xml.StartElement:
		s.start(v)
	case xml.CharData:
		if s.inText {
			s.para.Write(v)
		}
	case xml.EndElement:
		return s.end(v.Name.Local)
	}
	return nil
}

func (s *docxState) start(v xml.StartElement) {
	switch v.Name.Local {
	case "p":
		s.para.Reset()
		s.level = 0
	case "pStyle":
		s.level = s.styles[attr(v, "val")]
	case "outlineLvl":
		if n, err := strconv.Atoi(attr(v, "val")); err == nil && n < 9 && s.level == 0 {
			s.level = n + 1
		}
	case "t":
		s.inText = true
	case "tab":
		s.para.WriteByte('\t')
	case "br", "cr":
		if attr(v, "type") == "page" {
			s.breakPage()
		} else {
			s.para.WriteByte('\n')
		}
	case "lastRenderedPageBreak":
		s.breakPage()
	case "tbl":
		s.tables++
	case "tr":
		s.row = nil
	case "tc":
		s.cell = nil
	}
}

// breakPage starts a new page now when the paragraph is empty, else after it.
func (s *docxState) breakPage() {
	if s.para.Len() == 0 && s.tables == 0 {
		s.page++
		s.b.pageBreak(s.page)
		return
	}
	s.pending++
}

func (s *docxState) end(local string) error {
	switch local {
	case "t":
		s.inText = false
	case "p":
		text := s.para.String()
		s.para.Reset()
		if s.tables > 0 {
			if t := strings.TrimSpace(text); t != "" {
				s.cell = append(s.cell, t)
			}
			return nil
		}
		kind := KindParagraph
		if s.level > 0 {
			kind = KindHeading
		}
		err := s.b.add(kind, text, min(s.level, 6), 0, 0)
		s.flushPages()
		return err
	case "tc":
		s.row = append(s.row, strings.Join(s.cell, " "))
		s.cell = nil
	case "tr":
		s.rows = append(s.rows, strings.Join(s.row, " | "))
	case "tbl":
		s.tables--
		if s.tables == 0 {
			err := s.b.add(KindTable, strings.Join(s.rows, "\n"), 0, 0, 0)
			s.rows = nil
			s.flushPages()
			return err
		}
	}
	return nil
}

func (s *docxState) flushPages() {
	for ; s.pending > 0; s.pending-- {
		s.page++
		s.b.pageBreak(s.page)
	}
}
