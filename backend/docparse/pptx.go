package docparse

import (
	"encoding/xml"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
)

// rels reads the relationships of a part: id → resolved target part name.
func (a *archive) rels(part string) (map[string]string, error) {
	out := map[string]string{}
	relsName := path.Join(path.Dir(part), "_rels", path.Base(part)+".rels")
	rc, err := a.open(relsName)
	if err != nil {
		return out, nil
	}
	defer rc.Close()
	x := a.p.xmlReader(rc)
	for {
		t, err := x.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if se, ok := t.(xml.StartElement); ok && se.Name.Local == "Relationship" {
			out[attr(se, "Id")] = resolve(part, attr(se, "Target"))
		}
	}
}

// slideOrder lists the slide parts in presentation order, falling back to their numbers.
func (a *archive) slideOrder() ([]string, error) {
	rels, err := a.rels("ppt/presentation.xml")
	if err != nil {
		return nil, err
	}
	var order []string
	if rc, err := a.open("ppt/presentation.xml"); err == nil {
		defer rc.Close()
		x := a.p.xmlReader(rc)
		for {
			t, err := x.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			if se, ok := t.(xml.StartElement); ok && se.Name.Local == "sldId" {
				if target := rels[relID(se)]; target != "" && a.has(target) {
					order = append(order, target)
				}
			}
		}
	}
	if len(order) > 0 {
		return order, nil
	}
	for name := range a.files {
		if strings.HasPrefix(name, "ppt/slides/slide") && strings.HasSuffix(name, ".xml") {
			order = append(order, name)
		}
	}
	sort.Slice(order, func(i, j int) bool { return slideNum(order[i]) < slideNum(order[j]) })
	return order, nil
}

func slideNum(name string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "ppt/slides/slide"), ".xml"))
	return n
}

func (p *parser) pptx() (*Document, error) {
	a, err := p.openArchive()
	if err != nil {
		return nil, err
	}
	slides, err := a.slideOrder()
	if err != nil {
		return nil, err
	}
	if len(slides) == 0 && !a.has("ppt/presentation.xml") {
		return nil, errCorrupt(p.name, errMissing)
	}
	b := &builder{max: p.opts.MaxText}
	for i, part := range slides {
		b.pageBreak(i + 1)
		if err := a.slide(part, b); err != nil {
			return nil, err
		}
		p.progress(i+1, len(slides))
	}
	return &Document{Blocks: b.blocks, Title: a.xmlFirst("docProps/core.xml", "title"), Pages: len(slides)}, nil
}

// slideState follows a slide's shapes: the title placeholder, the paragraph, the table.
type slideState struct {
	b           *builder
	para, shape strings.Builder
	isTitle     bool
	inText      bool
	tables      int
	cell, row   []string
	rows        []string
}

// slide emits a slide's title placeholder as a level-1 heading, its tables as tables and
// its other paragraphs as paragraphs.
func (a *archive) slide(part string, b *builder) error {
	rc, err := a.open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	x := a.p.xmlReader(rc)
	s := &slideState{b: b}
	for {
		t, err := x.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch v := t.(type) {
		case xml.StartElement:
			s.start(v)
		case xml.CharData:
			if s.inText {
				s.para.Write(v)
			}
		case xml.EndElement:
			if err := s.end(v.Name.Local); err != nil {
				return err
			}
		}
	}
}

func (s *slideState) start(v xml.StartElement) {
	switch v.Name.Local {
	case "sp":
		s.isTitle = false
		s.shape.Reset()
	case "ph":
		typ := attr(v, "type")
		s.isTitle = typ == "title" || typ == "ctrTitle"
	case "t":
		s.inText = true
	case "br":
		s.para.WriteByte('\n')
	case "tbl":
		s.tables++
	case "tr":
		s.row = nil
	case "tc":
		s.cell = nil
	}
}

func (s *slideState) end(local string) error {
	switch local {
	case "t":
		s.inText = false
	case "p":
		text := s.para.String()
		s.para.Reset()
		switch {
		case s.tables > 0:
			if t := strings.TrimSpace(text); t != "" {
				s.cell = append(s.cell, t)
			}
		case s.isTitle:
			s.shape.WriteString(text + " ")
		default:
			return s.b.add(KindParagraph, text, 0, 0, 0)
		}
	case "sp":
		if s.isTitle {
			s.isTitle = false
			return s.b.add(KindHeading, s.shape.String(), 1, 0, 0)
		}
	case "tc":
		s.row = append(s.row, strings.Join(s.cell, " "))
	case "tr":
		s.rows = append(s.rows, strings.Join(s.row, " | "))
	case "tbl":
		s.tables--
		if s.tables == 0 {
			err := s.b.add(KindTable, strings.Join(s.rows, "\n"), 0, 0, 0)
			s.rows = nil
			return err
		}
	}
	return nil
}

// relID is the r:id of an element, which shares its local name with the plain id.
func relID(se xml.StartElement) string {
	for _, a := range se.Attr {
		if a.Name.Local == "id" && a.Name.Space != "" {
			return a.Value
		}
	}
	return ""
}
