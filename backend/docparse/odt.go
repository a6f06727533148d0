package docparse

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"
)

// odtState follows content.xml: the paragraph or heading, the table rows, the spans.
type odtState struct {
	b      *builder
	text   strings.Builder
	level  int
	depth  int // nesting of text:p / text:h being collected
	tables int
	cell   []string
	row    []string
	rows   []string
	skip   int // inside notes or other parts whose text is not body text
}

func (p *parser) odt() (*Document, error) {
	a, err := p.openArchive()
	if err != nil {
		return nil, err
	}
	if manifest, err := a.read("META-INF/manifest.xml"); err == nil && bytes.Contains(manifest, []byte("encryption-data")) {
		return nil, errEncrypted(p.name)
	}
	rc, err := a.open("content.xml")
	if err != nil {
		return nil, errCorrupt(p.name, err)
	}
	defer rc.Close()
	s := &odtState{b: &builder{max: p.opts.MaxText}}
	x := p.xmlReader(rc)
	if err := x.each(s.token); err != nil {
		return nil, err
	}
	return &Document{Blocks: s.b.blocks, Title: a.xmlFirst("meta.xml", "title")}, nil
}

func (s *odtState) token(t xml.Token) error {
	switch v := t.(type) {
	case xml.StartElement:
		s.start(v)
	case xml.CharData:
		if s.depth > 0 && s.skip == 0 {
			s.text.Write(v)
		}
	case xml.EndElement:
		return s.end(v.Name.Local)
	}
	return nil
}

func (s *odtState) start(v xml.StartElement) {
	switch v.Name.Local {
	case "p", "h":
		if s.depth == 0 {
			s.text.Reset()
			s.level = 0
			if v.Name.Local == "h" {
				s.level, _ = strconv.Atoi(attr(v, "outline-level"))
				s.level = max(1, min(s.level, 6))
			}
		}
		s.depth++
	case "s":
		n, err := strconv.Atoi(attr(v, "c"))
		if err != nil || n < 1 {
			n = 1
		}
		s.text.WriteString(strings.Repeat(" ", min(n, 64)))
	case "tab":
		s.text.WriteByte('\t')
	case "line-break":
		s.text.WriteByte('\n')
	case "note", "annotation", "tracked-changes":
		s.skip++
	case "table":
		s.tables++
	case "table-row":
		s.row = nil
	case "table-cell":
		s.cell = nil
	}
}

func (s *odtState) end(local string) error {
	switch local {
	case "p", "h":
		s.depth--
		if s.depth > 0 {
			return nil
		}
		text := s.text.String()
		if s.tables > 0 {
			if t := strings.TrimSpace(text); t != "" {
				s.cell = append(s.cell, t)
			}
			return nil
		}
		if local == "h" {
			return s.b.add(KindHeading, text, s.level, 0, 0)
		}
		return s.b.add(KindParagraph, text, 0, 0, 0)
	case "note", "annotation", "tracked-changes":
		s.skip--
	case "table-cell":
		s.row = append(s.row, strings.Join(s.cell, " "))
	case "table-row":
		s.rows = append(s.rows, strings.Join(s.row, " | "))
	case "table":
		s.tables--
		if s.tables == 0 {
			err := s.b.add(KindTable, strings.Join(s.rows, "\n"), 0, 0, 0)
			s.rows = nil
			return err
		}
	}
	return nil
}
