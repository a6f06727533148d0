package docparse

import (
	"bytes"
	"encoding/xml"
	"io"
	"path"
	"strings"
)

// epubPackage is what the OPF says: the title, the manifest and the reading order.
type epubPackage struct {
	title    string
	manifest map[string]string // id → part
	spine    []string          // ids
}

func (p *parser) epub() (*Document, error) {
	a, err := p.openArchive()
	if err != nil {
		return nil, err
	}
	opf, err := a.epubRoot()
	if err != nil {
		return nil, err
	}
	if enc, err := a.read("META-INF/encryption.xml"); err == nil && epubContentEncrypted(enc) {
		return nil, errEncrypted(p.name)
	}
	pkg, err := a.epubPackage(opf)
	if err != nil {
		return nil, err
	}
	b := &builder{max: p.opts.MaxText}
	for _, id := range pkg.spine {
		part := pkg.manifest[id]
		if part == "" {
			continue
		}
		rc, err := a.open(part)
		if err != nil {
			continue // a spine entry naming a missing part: read the rest
		}
		_, err = p.htmlBlocks(rc, b)
		rc.Close()
		if err != nil {
			return nil, err
		}
	}
	return &Document{Blocks: b.blocks, Title: pkg.title}, nil
}

// epubContentEncrypted reports DRM on text parts; fonts alone may be obfuscated harmlessly.
func epubContentEncrypted(enc []byte) bool {
	for _, ext := range []string{".xhtml\"", ".html\"", ".htm\"", ".xml\""} {
		if bytes.Contains(enc, []byte(ext)) {
			return true
		}
	}
	return false
}

func (a *archive) epubRoot() (string, error) {
	rc, err := a.open("META-INF/container.xml")
	if err != nil {
		return "", errCorrupt(a.p.name, err)
	}
	defer rc.Close()
	x := a.p.xmlReader(rc)
	for {
		t, err := x.next()
		if err == io.EOF {
			return "", errCorrupt(a.p.name, errMissing)
		}
		if err != nil {
			return "", err
		}
		if se, ok := t.(xml.StartElement); ok && se.Name.Local == "rootfile" {
			return strings.TrimPrefix(path.Clean("/"+attr(se, "full-path")), "/"), nil
		}
	}
}

func (a *archive) epubPackage(opf string) (*epubPackage, error) {
	rc, err := a.open(opf)
	if err != nil {
		return nil, errCorrupt(a.p.name, err)
	}
	defer rc.Close()
	pkg := &epubPackage{manifest: map[string]string{}}
	x := a.p.xmlReader(rc)
	inTitle := false
	for {
		t, err := x.next()
		if err == io.EOF {
			return pkg, nil
		}
		if err != nil {
			return nil, err
		}
		switch v := t.(type) {
		case xml.StartElement:
			switch v.Name.Local {
			case "title":
				inTitle = pkg.title == ""
			case "item":
				pkg.manifest[attr(v, "id")] = resolve(opf, attr(v, "href"))
			case "itemref":
				pkg.spine = append(pkg.spine, attr(v, "idref"))
			}
		case xml.CharData:
			if inTitle {
				pkg.title += strings.TrimSpace(string(v))
			}
		case xml.EndElement:
			inTitle = false
		}
	}
}
