package docparse

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
)

// bomb is a zip with one XML entry of n spaces: deflate packs it about a thousand to one.
func bomb(t *testing.T, entry string, n int) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	fw, err := w.Create(entry)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte("<w:document>"))
	zero := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i < n>>20; i++ {
		fw.Write(zero)
	}
	w.Close()
	return buf.Bytes()
}

// lyingBomb declares a small uncompressed size for an entry that inflates far more, which
// a reader trusting the header would accept; archive/zip stops at the declared size.
func lyingBomb(t *testing.T) []byte {
	data := bomb(t, "word/document.xml", 16<<20)
	// patch the central directory's and local header's uncompressed sizes to 100 bytes
	for _, sig := range []struct {
		magic string
		off   int
	}{{"PK\x01\x02", 24}, {"PK\x03\x04", 22}} {
		i := bytes.LastIndex(data, []byte(sig.magic))
		copy(data[i+sig.off:], []byte{100, 0, 0, 0})
	}
	return data
}

func TestHostileFiles(t *testing.T) {
	manyEntries := make([]zipFile, 0, 30)
	for i := 0; i < 30; i++ {
		manyEntries = append(manyEntries, zipFile{name: strings.Repeat("e", i+1) + ".xml", body: "x"})
	}
	manyEntries = append(manyEntries, zipFile{name: "word/document.xml", body: "<w:document/>"})
	deep := "<w:document><w:body>" + strings.Repeat("<w:p>", 5000) + "x" + strings.Repeat("</w:p>", 5000) + "</w:body></w:document>"
	deepHTML := "<html><body>" + strings.Repeat("<div><span>", 3000) + "x"
	cases := []struct {
		name string
		file string
		data []byte
		opts Options
		code apperr.Code
	}{
		{"zip bomb by ratio", "b.docx", bomb(t, "word/document.xml", 8<<20), Options{}, apperr.DocUnpackedTooLarge},
		{"zip bomb over budget", "b.docx", bomb(t, "word/document.xml", 8<<20), Options{MaxUnpacked: 4 << 20, MaxRatio: 1 << 30}, apperr.DocUnpackedTooLarge},
		{"zip bomb lying about its size", "b.docx", lyingBomb(t), Options{MaxRatio: 1 << 30, MaxUnpacked: 16 << 20}, apperr.DocCorrupt},
		{"XLSX zip bomb", "b.xlsx", bomb(t, "xl/worksheets/sheet1.xml", 8<<20), Options{}, apperr.DocUnpackedTooLarge},
		{"text over the text cap", "big.md", []byte(strings.Repeat("# a\n", 600)), Options{MaxText: 1000}, apperr.DocTooLarge},
		{"too many entries", "m.docx", makeZip(t, manyEntries...), Options{MaxEntries: 20}, apperr.DocUnpackedTooLarge},
		{"deep XML", "d.docx", docxDeep(t, deep), Options{}, apperr.DocCorrupt},
		{"deep HTML", "d.html", []byte(deepHTML), Options{}, apperr.DocCorrupt},
		{"too large", "big.txt", []byte(strings.Repeat("a", 2048)), Options{MaxSize: 1024}, apperr.DocTooLarge},
		{"binary", "program.txt", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 100)...), Options{}, apperr.DocUnsupportedType},
		{"image", "photo.jpg", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01"), Options{}, apperr.DocUnsupportedType},
		{"encrypted OOXML", "secret.docx", append([]byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"), make([]byte, 512)...), Options{}, apperr.DocEncrypted},
		{"encrypted ODT", "secret.odt", odtEncrypted(t), Options{}, apperr.DocEncrypted},
		{"DRM EPUB", "drm.epub", epubFile(t, zipFile{name: "META-INF/encryption.xml", body: `<encryption><EncryptedData><CipherData><CipherReference URI="OEBPS/text/ch1.xhtml"/></CipherData></EncryptedData></encryption>`}), Options{}, apperr.DocEncrypted},
		{"truncated DOCX", "t.docx", docxFile(t, wp("", "hello"))[:200], Options{}, apperr.DocCorrupt},
		{"DOCX without document part", "e.docx", makeZip(t, zipFile{name: "word/other.xml", body: "<x/>"}), Options{}, apperr.DocCorrupt},
		{"broken XLSX", "x.xlsx", makeZip(t, zipFile{name: "xl/workbook.xml", body: "<workbook><sheets><sheet"}), Options{}, apperr.DocCorrupt},
		{"extracted text over cap", "big.docx", docxFile(t, strings.Repeat(wp("", strings.Repeat("word ", 100)), 50)), Options{MaxText: 10000}, apperr.DocTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseBytes(t, c.file, c.data, c.opts)
			wantCode(t, err, c.code)
			if ae := apperr.From(err); ae.Params["name"] == nil && c.code != apperr.DocTooLarge {
				t.Fatalf("error names no file: %+v", ae)
			}
		})
	}
}

func docxDeep(t *testing.T, doc string) []byte {
	return makeZip(t, zipFile{name: "word/document.xml", body: doc})
}

func odtEncrypted(t *testing.T) []byte {
	return makeZip(t,
		zipFile{name: "mimetype", body: "application/vnd.oasis.opendocument.text", store: true},
		zipFile{name: "META-INF/manifest.xml", body: `<manifest:manifest xmlns:manifest="m"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>`},
		zipFile{name: "content.xml", body: "\x01\x02 ciphertext"})
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	data := []byte("text")
	_, err := Parse(ctx, "a.txt", bytes.NewReader(data), int64(len(data)), Options{})
	wantCode(t, err, apperr.Canceled)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cause lost: %v", err)
	}
}

func TestFallbackIsUsedWhenTheReaderFails(t *testing.T) {
	pdf20 := []byte("%PDF-2.0\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n") // the built-in reader refuses 2.0 headers
	called := false
	fb := func(_ context.Context, r io.ReaderAt, size int64) ([]string, error) {
		called = true
		return []string{"page one text\n\nsecond para", "页二"}, nil
	}
	doc, err := parseBytes(t, "new.pdf", pdf20, Options{PDFFallback: fb})
	if err != nil || !called {
		t.Fatalf("fallback not used: %v", err)
	}
	if got := blockSummary(doc); got != "paragraph/0/p1/l0:page one text|\nparagraph/0/p1/l0:second para|\npage-break/0/p2/l0:|\nparagraph/0/p2/l0:页二|\n" || doc.Pages != 2 {
		t.Fatalf("got\n%s", got)
	}
	encErr := func(context.Context, io.ReaderAt, int64) ([]string, error) {
		return nil, apperr.New(apperr.DocEncrypted, "password")
	}
	_, err = parseBytes(t, "new.pdf", pdf20, Options{PDFFallback: encErr})
	wantCode(t, err, apperr.DocEncrypted)
	_, err = parseBytes(t, "new.pdf", pdf20, Options{})
	wantCode(t, err, apperr.DocCorrupt)
}
