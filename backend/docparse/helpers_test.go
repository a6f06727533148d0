package docparse

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
)

// zipFile is one entry of an archive a test writes.
type zipFile struct {
	name, body string
	store      bool // stored uncompressed (OOXML and EPUB want the mimetype stored)
}

func makeZip(t testing.TB, files ...zipFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, f := range files {
		m := zip.Deflate
		if f.store {
			m = zip.Store
		}
		fw, err := w.CreateHeader(&zip.FileHeader{Name: f.name, Method: m})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func parseBytes(t testing.TB, name string, data []byte, opts Options) (*Document, error) {
	t.Helper()
	return Parse(context.Background(), name, bytes.NewReader(data), int64(len(data)), opts)
}

func mustParse(t testing.TB, name string, data []byte) *Document {
	t.Helper()
	doc, err := parseBytes(t, name, data, Options{})
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return doc
}

func wantCode(t *testing.T, err error, code apperr.Code) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("want *apperr.Error %s, got %T %v", code, err, err)
	}
	if ae.Code != code {
		t.Fatalf("want code %s, got %s (%v)", code, ae.Code, err)
	}
}

// blockSummary renders blocks as "kind/level/page:text" lines for compact assertions.
func blockSummary(doc *Document) string {
	var sb strings.Builder
	for _, b := range doc.Blocks {
		fmt.Fprintf(&sb, "%s/%d/p%d/l%d:%s|%s\n", b.Kind, b.Level, b.Page, b.Line,
			strings.ReplaceAll(b.Text, "\n", "⏎"), strings.Join(b.HeadingPath, ">"))
	}
	return sb.String()
}

func findBlock(t *testing.T, doc *Document, substr string) Block {
	t.Helper()
	for _, b := range doc.Blocks {
		if strings.Contains(b.Text, substr) {
			return b
		}
	}
	t.Fatalf("no block contains %q in:\n%s", substr, blockSummary(doc))
	return Block{}
}

// ghostscript writes a PDF from PostScript, as a person's printer driver would.
func ghostscript(t testing.TB, ps string) []byte {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.ps"), filepath.Join(dir, "out.pdf")
	if err := writeFile(in, ps); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("gs", "-q", "-dBATCH", "-dNOPAUSE", "-dSAFER", "-sDEVICE=pdfwrite", "-sOutputFile="+out, in)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ghostscript (apt-get install ghostscript; .ci/deps.sh does): %v\n%s", err, b)
	}
	data, err := readFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// psPages writes PostScript pages: each page a heading line and body lines.
func psPages(pages [][]string) string {
	var sb strings.Builder
	sb.WriteString("%!PS\n")
	for _, lines := range pages {
		y := 720
		for i, l := range lines {
			font, size := "/Helvetica", 11
			if i == 0 {
				font, size = "/Helvetica-Bold", 20
			}
			fmt.Fprintf(&sb, "%s findfont %d scalefont setfont 72 %d moveto (%s) show\n", font, size, y, psEscape(l))
			y -= 14
			if i == 0 {
				y -= 16
			}
		}
		sb.WriteString("showpage\n")
	}
	return sb.String()
}

func psEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}
