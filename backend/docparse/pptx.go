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
	}
	return &Document{Blocks: b.blocks, Title: a.xmlFirst("docProps/core.xml", "title"), Pages: len(slides)}, nil
}

// slide emits a slide's title placeholder as a level-1 heading and its other paragraphs.
func (a *archive) slide(part string, b *builder) error {
	rc, err := a.open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	x := a.p.xmlReader(rc)
	var para, shape strings.Builder
	isTitle, inText := false, false
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
			switch v.Name.Local {
			case "sp":
				isTitle = false
				shape.Reset()
			case "ph":
				typ := attr(v, "type")
				isTitle = typ == "title" || typ == "ctrTitle"
			case "t":
				inText = true
			case "br":
				para.WriteByte('\n')
			}
		case xml.CharData:
			if inText {
				para.Write(v)
			}
		case xml.EndElement:
			switch v.Name.Local {
			case "t":
				inText = false
			case "p":
				if isTitle {
					shape.WriteString(para.String() + " ")
				} else if err := b.add(KindParagraph, para.String(), 0, 0, 0); err != nil {
					return err
				}
				para.Reset()
			case "sp":
				if isTitle {
					if err := b.add(KindHeading, shape.String(), 1, 0, 0); err != nil {
						return err
					}
				}
				isTitle = false
			}
		}
	}
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
