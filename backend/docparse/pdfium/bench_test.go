package pdfium

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func benchPDF(b *testing.B, pages int) []byte {
	var ps strings.Builder
	ps.WriteString("%!PS\n")
	for i := 0; i < pages; i++ {
		for j := 0; j < 40; j++ {
			fmt.Fprintf(&ps, "/Helvetica findfont 11 scalefont setfont 72 %d moveto (Line %d of page %d: knowledge bases read documents.) show\n", 740-j*14, j, i)
		}
		ps.WriteString("showpage\n")
	}
	dir := b.TempDir()
	in, out := filepath.Join(dir, "in.ps"), filepath.Join(dir, "out.pdf")
	os.WriteFile(in, []byte(ps.String()), 0o600)
	if o, err := exec.Command("gs", "-q", "-dBATCH", "-dNOPAUSE", "-dSAFER", "-sDEVICE=pdfwrite", "-sOutputFile="+out, in).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, o)
	}
	data, _ := os.ReadFile(out)
	return data
}

// BenchmarkFallback reports PDFium's start-up time and page throughput in the interpreter
// and compiled with an empty and with a filled compilation cache.
func BenchmarkFallback(b *testing.B) {
	data := benchPDF(b, 50)
	cache := b.TempDir()
	for _, mode := range []struct{ name, dir string }{{"interpreter", ""}, {"compiled-cold", cache}, {"compiled-warm", cache}} {
		b.Run(mode.name, func(b *testing.B) {
			pages := 0
			var startup time.Duration
			for i := 0; i < b.N; i++ {
				e := New(mode.dir)
				t0 := time.Now()
				if err := e.start(); err != nil {
					b.Fatal(err)
				}
				startup += time.Since(t0)
				out, err := e.Extract(context.Background(), bytes.NewReader(data), int64(len(data)))
				if err != nil {
					b.Fatal(err)
				}
				pages += len(out)
				e.Close()
				if mode.name == "compiled-cold" && i+1 < b.N {
					os.RemoveAll(cache)
				}
			}
			b.ReportMetric(startup.Seconds()/float64(b.N), "s-startup")
			b.ReportMetric(float64(pages)/(b.Elapsed()-startup).Seconds(), "pages/s")
		})
	}
}
