package ops

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
)

func TestReadNumbersLines(t *testing.T) {
	e := newEnv(t)
	e.put("a.txt", "one\ntwo\r\nthree\nfour\nfive")
	tests := []struct {
		name          string
		offset, limit int
		want          string
		more          bool
	}{
		{"all", 0, 0, "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n     5\tfive\n", false},
		{"offset", 4, 0, "     4\tfour\n     5\tfive\n", false},
		{"limit", 2, 2, "     2\ttwo\n     3\tthree\n", true},
		{"past the end", 9, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r ReadResult
			if err := call(t, OpRead, ReadRequest{Common: e.common(), Path: "a.txt", Offset: tt.offset, Limit: tt.limit}, &r); err != nil {
				t.Fatal(err)
			}
			if r.Content != tt.want || r.More != tt.more || r.Lines != 5 || r.Kind != "text" {
				t.Fatalf("got %q more=%v lines=%d kind=%s", r.Content, r.More, r.Lines, r.Kind)
			}
		})
	}
}

func TestReadCutsLongLinesAndCapsOutput(t *testing.T) {
	e := newEnv(t)
	e.put("long.txt", strings.Repeat("x", 100_000)+"\nshort\n")
	var r ReadResult
	if err := call(t, OpRead, ReadRequest{Common: e.common(), Path: "long.txt"}, &r); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(r.Content, "\n")
	if r.Cut != 1 || !strings.HasSuffix(first, "[line cut]") || len(first) > MaxLineChars+40 || !strings.Contains(r.Content, "2\tshort") {
		t.Fatalf("cut=%d first line %d bytes: %q…", r.Cut, len(first), first[:40])
	}
	e.put("many.txt", strings.Repeat(strings.Repeat("y", 1000)+"\n", 1000))
	if err := call(t, OpRead, ReadRequest{Common: e.common(), Path: "many.txt", Limit: 1000}, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Content) > MaxReadOutput+2000 || !r.More || r.To >= 1000 {
		t.Fatalf("output %d bytes, to %d, more %v", len(r.Content), r.To, r.More)
	}
}

func TestReadDecodesUTF16(t *testing.T) {
	e := newEnv(t)
	enc := encoding{name: "utf-16le", bom: true}
	raw, err := enc.encode("héllo\n世界\n")
	if err != nil {
		t.Fatal(err)
	}
	e.put("u16.txt", string(raw))
	var r ReadResult
	if err := call(t, OpRead, ReadRequest{Common: e.common(), Path: "u16.txt"}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Encoding != "utf-16le" || r.Content != "     1\théllo\n     2\t世界\n" {
		t.Fatalf("encoding %s content %q", r.Encoding, r.Content)
	}
}

func TestReadDescribesImagesPDFsAndBinaries(t *testing.T) {
	e := newEnv(t)
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 32, 16))); err != nil {
		t.Fatal(err)
	}
	e.put("pic.png", buf.String())
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.AddPage()
	pdf.SetFont("Helvetica", "", 12)
	pdf.Cell(40, 10, "Quarterly figures")
	pdf.AddPage()
	pdf.Cell(40, 10, "Second page")
	buf.Reset()
	if err := pdf.Output(&buf); err != nil {
		t.Fatal(err)
	}
	e.put("doc.pdf", buf.String())
	e.put("blob.bin", "\x00\x01\x02ELF\x00\x00")

	var r ReadResult
	if err := call(t, OpRead, ReadRequest{Common: e.common(), Path: "pic.png"}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Kind != "image" || r.Image == nil || r.Image.Width != 32 || r.Image.Height != 16 || len(r.Image.Data) == 0 || !strings.Contains(r.Content, "32×16") {
		t.Fatalf("image: %+v", r)
	}
	if err := call(t, OpRead, ReadRequest{Common: e.common(), Path: "doc.pdf"}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Kind != "document" || r.Format != "pdf" || r.Pages != 2 || !strings.Contains(r.Content, "Quarterly figures") {
		t.Fatalf("pdf: %+v", r)
	}
	if err := call(t, OpRead, ReadRequest{Common: e.common(), Path: "blob.bin"}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Kind != "binary" || !strings.Contains(r.Content, "not shown") {
		t.Fatalf("binary: %+v", r)
	}
}

// TestReadStaysInside is every way a read could reach the secret beside the workspace;
// each is refused with its own reason, and the same read inside works.
func TestReadStaysInside(t *testing.T) {
	e := newEnv(t)
	e.put("inside.txt", "fine\n")
	e.put("dir/deep.txt", "deep\n")
	e.link("../outside/secret.txt", "rel-link")
	e.link(e.secret, "abs-link")
	e.link("../outside", "dir-link")
	e.link("/proc/self/root"+e.secret, "proc-link")
	e.link("inside.txt", "good-link")
	if err := os.Link(e.secret, filepath.Join(e.ws, "hard")); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(e.ws, "fifo"))
	tests := []struct{ path, code string }{
		{"../outside/secret.txt", CodeOutside},
		{"dir/../../outside/secret.txt", CodeOutside},
		{e.secret, CodeOutside},
		{"/etc/passwd", CodeOutside},
		{"rel-link", CodeOutside},
		{"abs-link", CodeOutside},
		{"dir-link/secret.txt", CodeOutside},
		{"proc-link", CodeOutside},
		{"hard", CodeHardlinked},
		{"fifo", CodeNotRegular},
		{"dir", CodeIsDir},
		{"missing.txt", CodeNotFound},
		{"inside.txt/x", CodeNotDir},
		{"a\x00b", CodeBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			done := make(chan *Error, 1)
			go func() { done <- call(t, OpRead, ReadRequest{Common: e.common(), Path: tt.path}, nil) }()
			select {
			case err := <-done:
				wantCode(t, err, tt.code)
				if strings.Contains(err.Message, "TOP SECRET") {
					t.Fatal("the refusal carries the secret")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the read hangs")
			}
		})
	}
	for _, p := range []string{"inside.txt", "good-link", filepath.Join(e.ws, "dir/deep.txt"), "dir/../inside.txt"} {
		var r ReadResult
		if err := call(t, OpRead, ReadRequest{Common: e.common(), Path: p}, &r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
}

func TestMainRefusesUnknownOpsAndBadRequests(t *testing.T) {
	var out bytes.Buffer
	if code := Main("rm", strings.NewReader("{}"), &out); code != 2 || !strings.Contains(out.String(), "unknown operation") {
		t.Fatalf("unknown op: %d %s", code, out.String())
	}
	out.Reset()
	if code := Main(OpRead, strings.NewReader("{nope"), &out); code != 0 || !strings.Contains(out.String(), CodeBadRequest) {
		t.Fatalf("bad JSON: %d %s", code, out.String())
	}
	wantCode(t, call(t, OpRead, ReadRequest{Common: Common{Workspace: "relative/ws"}, Path: "x"}, nil), CodeBadRequest)
	wantCode(t, call(t, OpRead, ReadRequest{Common: Common{Workspace: t.TempDir(), Protected: []string{"["}}, Path: "x"}, nil), CodeBadRequest)
}
