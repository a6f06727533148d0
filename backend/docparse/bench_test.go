package docparse

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// benchPDF is a 200-page report written by ghostscript: a heading and 40 lines of prose
// per page, about as dense as a typical paper or manual.
func benchPDF(b *testing.B) []byte {
	pages := make([][]string, 200)
	for i := range pages {
		lines := []string{fmt.Sprintf("Section %d of the benchmark report", i+1)}
		for j := 0; j < 40; j++ {
			lines = append(lines, fmt.Sprintf("Line %d of page %d: knowledge bases read documents and cut them into chunks.", j+1, i+1))
		}
		pages[i] = lines
	}
	return ghostscript(b, psPages(pages))
}

// BenchmarkPDFParseChunk measures PDF parse + chunk throughput; it reports pages/s.
func BenchmarkPDFParseChunk(b *testing.B) {
	data := benchPDF(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	pages := 0
	for i := 0; i < b.N; i++ {
		doc, err := Parse(context.Background(), "bench.pdf", bytes.NewReader(data), int64(len(data)), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(Chunks(doc, DefaultChunkSize, DefaultOverlap)) == 0 {
			b.Fatal("no chunks")
		}
		pages += doc.Pages
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
