package pdfium

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/docparse"
)

func ghostscriptPDF(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	ps := "%!PS\n/Helvetica findfont 12 scalefont setfont 72 720 moveto (Read by PDFium in WebAssembly) show showpage\n" +
		"/Helvetica findfont 12 scalefont setfont 72 720 moveto (Second page) show showpage\n"
	in, out := filepath.Join(dir, "in.ps"), filepath.Join(dir, "out.pdf")
	if err := os.WriteFile(in, []byte(ps), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("gs", "-q", "-dBATCH", "-dNOPAUSE", "-dSAFER", "-sDEVICE=pdfwrite", "-sOutputFile="+out, in).CombinedOutput(); err != nil {
		t.Fatalf("ghostscript: %v %s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// One extractor for the whole file: PDFium starts once (the interpreter, well under a second).
func TestFallbackReadsWhatTheGoReaderRefuses(t *testing.T) {
	e := New("")
	defer e.Close()
	opts := docparse.Options{PDFFallback: e.Extract}
	pdf := ghostscriptPDF(t)
	// the same file with a PDF 2.0 header, which the pure-Go reader refuses outright
	v2 := bytes.Replace(pdf, []byte("%PDF-1.7"), []byte("%PDF-2.0"), 1)
	if _, err := docparse.Parse(context.Background(), "v2.pdf", bytes.NewReader(v2), int64(len(v2)), docparse.Options{}); !apperr.Is(err, apperr.DocCorrupt) {
		t.Fatalf("without the fallback want doc_corrupt, got %v", err)
	}
	doc, err := docparse.Parse(context.Background(), "v2.pdf", bytes.NewReader(v2), int64(len(v2)), opts)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != 2 || !strings.Contains(doc.Text(), "Read by PDFium in WebAssembly") {
		t.Fatalf("pages %d text %q", doc.Pages, doc.Text())
	}
	last := doc.Blocks[len(doc.Blocks)-1]
	if last.Page != 2 || last.Text != "Second page" {
		t.Fatalf("last block %+v", last)
	}

	t.Run("encrypted", func(t *testing.T) {
		enc := regexp.MustCompile(`/Root `).ReplaceAll(bytes.Replace(v2, []byte("%PDF-2.0"), []byte("%PDF-1.7"), 1),
			[]byte("/Encrypt << /Filter /Standard /V 2 /R 3 /Length 128 /P -44 /O <"+strings.Repeat("11", 32)+"> /U <"+strings.Repeat("22", 32)+"> >> /Root "))
		_, err := e.Extract(context.Background(), bytes.NewReader(enc), int64(len(enc)))
		if !apperr.Is(err, apperr.DocEncrypted) {
			t.Fatalf("want doc_encrypted, got %v", err)
		}
	})
	t.Run("not a PDF", func(t *testing.T) {
		junk := []byte("%PDF-2.0\nnothing here")
		_, err := e.Extract(context.Background(), bytes.NewReader(junk), int64(len(junk)))
		if !apperr.Is(err, apperr.DocCorrupt) {
			t.Fatalf("want doc_corrupt, got %v", err)
		}
	})
}
