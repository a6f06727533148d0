package docparse

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/xuri/excelize/v2"
)

// TestMutatedFilesFailCleanly flips bytes of real files of every archive and PDF kind: each
// result must be a document or an *apperr.Error, never a panic or a hang.
func TestMutatedFilesFailCleanly(t *testing.T) {
	x := excelize.NewFile()
	x.SetCellValue("Sheet1", "A1", "数据")
	var xb bytes.Buffer
	x.Write(&xb)
	samples := map[string][]byte{
		"a.pdf":  ghostscript(t, psPages([][]string{{"Title", "Some body text.", "More text."}, {"Two", "x"}})),
		"b.pdf":  writePDF([][]pdfText{{{20, 72, 760, "标题"}, {11, 72, 730, "正文。"}}}, true),
		"c.docx": docxFile(t, wp("1", "Heading")+wp("", "para")),
		"d.epub": epubFile(t),
		"e.xlsx": xb.Bytes(),
		"f.html": []byte("<html><head><title>t</title></head><body><h1>a</h1><p>b<table><tr><td>c</td></tr></table></body></html>"),
	}
	rng := rand.New(rand.NewSource(1))
	for name, data := range samples {
		for i := 0; i < 100; i++ {
			m := append([]byte(nil), data...)
			for j := 0; j < 1+rng.Intn(8); j++ {
				m[rng.Intn(len(m))] = byte(rng.Intn(256))
			}
			if rng.Intn(4) == 0 {
				m = m[:rng.Intn(len(m))]
			}
			done := make(chan error, 1)
			go func() { _, err := parseBytes(t, name, m, Options{}); done <- err }()
			select {
			case err := <-done:
				var ae *apperr.Error
				if err != nil && !errors.As(err, &ae) {
					t.Fatalf("%s mutation %d: untyped error %T %v", name, i, err, err)
				}
			case <-time.After(3 * time.Second):
				t.Fatalf("%s mutation %d: no answer in 3 s", name, i)
			}
		}
	}
}
