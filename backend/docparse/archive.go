package docparse

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// archive is a zip checked before anything is inflated: entry count, declared total and
// declared ratio per entry. archive/zip refuses to inflate an entry past its declared size,
// so the declared figures bind; the budget counted on the bytes actually read is a second
// line should that ever change.
type archive struct {
	p      *parser
	zr     *zip.Reader
	files  map[string]*zip.File
	budget int64
}

func (p *parser) openArchive() (*archive, error) {
	zr, err := zip.NewReader(p.r, p.size)
	if err != nil {
		return nil, errCorrupt(p.name, err)
	}
	if len(zr.File) > p.opts.MaxEntries {
		return nil, errUnpacked(p.name, fmt.Sprintf("%d entries, the limit is %d", len(zr.File), p.opts.MaxEntries))
	}
	a := &archive{p: p, zr: zr, files: make(map[string]*zip.File, len(zr.File)), budget: p.opts.MaxUnpacked}
	var declared uint64
	for _, f := range zr.File {
		declared += f.UncompressedSize64
		// archive/zip refuses to inflate past the declared size, so a declared ratio is
		// one the entry cannot exceed: checking it here covers readers of our own and
		// excelize alike
		if f.UncompressedSize64 > 1<<20 && f.UncompressedSize64 > uint64(p.opts.MaxRatio)*max(f.CompressedSize64, 1) {
			return nil, errUnpacked(p.name, fmt.Sprintf("%s inflates more than %d times", f.Name, p.opts.MaxRatio))
		}
		a.files[strings.TrimPrefix(path.Clean("/"+f.Name), "/")] = f
	}
	if declared > uint64(p.opts.MaxUnpacked) {
		return nil, errUnpacked(p.name, fmt.Sprintf("declares %d bytes unpacked, the limit is %d", declared, p.opts.MaxUnpacked))
	}
	return a, nil
}

func (a *archive) has(name string) bool { _, ok := a.files[name]; return ok }

// open returns a bounded reader of one entry; errMissing when absent.
func (a *archive) open(name string) (io.ReadCloser, error) {
	f, ok := a.files[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", errMissing, name)
	}
	if f.Flags&0x1 != 0 {
		return nil, errEncrypted(a.p.name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, errCorrupt(a.p.name, err)
	}
	return &boundedEntry{rc: rc, a: a}, nil
}

// read returns a whole entry.
func (a *archive) read(name string) ([]byte, error) {
	rc, err := a.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, errCorrupt(a.p.name, err)
	}
	return b, nil
}

var errMissing = errors.New("archive entry missing")

type boundedEntry struct {
	rc io.ReadCloser
	a  *archive
}

func (e *boundedEntry) Read(b []byte) (int, error) {
	if err := e.a.p.ctx.Err(); err != nil {
		return 0, canceled(err)
	}
	n, err := e.rc.Read(b)
	e.a.budget -= int64(n)
	if e.a.budget < 0 {
		return n, errUnpacked(e.a.p.name, fmt.Sprintf("more than %d bytes unpacked", e.a.p.opts.MaxUnpacked))
	}
	return n, err
}

func (e *boundedEntry) Close() error { return e.rc.Close() }

// xmlReader walks XML tokens with a nesting cap; entities beyond XML's own are refused by
// encoding/xml, so there is no entity expansion to bomb.
type xmlReader struct {
	d     *xml.Decoder
	depth int
	max   int
	name  string
}

func (p *parser) xmlReader(r io.Reader) *xmlReader {
	d := xml.NewDecoder(r)
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) { return in, nil }
	return &xmlReader{d: d, max: p.opts.MaxXMLDepth, name: p.name}
}

// each hands every token to fn until the end of the document or the first error.
func (x *xmlReader) each(fn func(xml.Token) error) error {
	for {
		t, err := x.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
	}
}

// next returns the next token, or io.EOF at the end; other errors are doc errors.
func (x *xmlReader) next() (xml.Token, error) {
	t, err := x.d.Token()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, errCorrupt(x.name, err)
	}
	switch t.(type) {
	case xml.StartElement:
		x.depth++
		if x.depth > x.max {
			return nil, errCorrupt(x.name, fmt.Errorf("XML nested deeper than %d", x.max))
		}
	case xml.EndElement:
		x.depth--
	}
	return t, nil
}

// skip consumes the rest of the current element.
func (x *xmlReader) skip() error {
	depth := 1
	for depth > 0 {
		t, err := x.next()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		switch t.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// readXMLText returns the concatenated character data of a small XML entry's elements
// with the given local name (titles in metadata parts); "" when absent.
func (a *archive) xmlFirst(entry, local string) string {
	rc, err := a.open(entry)
	if err != nil {
		return ""
	}
	defer rc.Close()
	x := a.p.xmlReader(rc)
	in := false
	var sb strings.Builder
	for {
		t, err := x.next()
		if err != nil {
			return strings.TrimSpace(sb.String())
		}
		switch v := t.(type) {
		case xml.StartElement:
			in = v.Name.Local == local
		case xml.CharData:
			if in {
				sb.Write(v)
			}
		case xml.EndElement:
			if in && v.Name.Local == local {
				return strings.TrimSpace(sb.String())
			}
		}
	}
}

// resolve joins a relationship target to the directory of the part that names it.
func resolve(base, target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean("/"+path.Join(path.Dir(base), target)), "/")
}
