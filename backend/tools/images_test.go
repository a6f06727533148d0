package tools_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// bigPNG is a w×h PNG stored without compression, so its size is close to a full-page
// screenshot's while it stays cheap to make and read (the race detector slows a
// compressor down a hundredfold).
func bigPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	row := img.Pix[:4*w]
	for x := 0; x < w; x++ {
		row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = byte(x), byte(x>>3), 200, 255
	}
	for y := 1; y < h; y++ {
		copy(img.Pix[y*img.Stride:], row)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestImagesAreKeptWhole: a tool's images are files under the data directory, byte for
// byte (an 11.5 MB screenshot is not cut to what fits a card), the model reads their
// type, size and path, and the card can fetch them by name, nothing else.
func TestImagesAreKeptWhole(t *testing.T) {
	big := bigPNG(t, 2400, 1600)
	if len(big) < 11_000_000 {
		t.Fatalf("test image is only %d bytes", len(big))
	}
	tiny := bigPNG(t, 20, 20)
	r := tools.NewRegistry()
	shot := tools.Entry{Name: "shot", Namespace: "mcp:pw", Description: "screenshot", ReadOnly: true,
		Execute: func(context.Context, json.RawMessage, func(tools.Progress)) (tools.Result, error) {
			return tools.Result{Content: "Took a screenshot.", Images: []tools.Image{{MIMEType: "image/png", Data: big}, {MIMEType: "image/png", Data: tiny}}}, nil
		}}
	if err := r.Register(shot); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := tools.NewPipeline(r, tools.Options{DataDir: dir})
	o := p.RunBatch(context.Background(), []tools.Call{toolstest.Call("c1", "shot", `{}`, toolstest.ChatScope("s1"))}, nil)[0]
	if o.Status != tools.StatusResult || len(o.Images) != 2 || o.SpillPath != "" {
		t.Fatalf("outcome %+v", o)
	}
	for i, want := range [][]byte{big, tiny} {
		ref := o.Images[i]
		got, err := os.ReadFile(ref.Path)
		sum := sha256.Sum256(want)
		if err != nil || !bytes.Equal(got, want) || ref.SHA256 != hex.EncodeToString(sum[:]) || ref.Bytes != len(want) {
			t.Fatalf("image %d: %d bytes on disk (%v), ref %+v", i+1, len(got), err, ref)
		}
		if !strings.HasPrefix(ref.Path, filepath.Join(dir, "tool-images", "s1")) {
			t.Fatalf("image %d saved at %s", i+1, ref.Path)
		}
		if !strings.Contains(o.Content, ref.Path) {
			t.Fatalf("the model is not told where image %d is:\n%s", i+1, o.Content)
		}
	}
	if !strings.Contains(o.Content, "image 1 of 2: image/png, 2400×1600 px") || len(o.Content) > 1000 {
		t.Fatalf("content:\n%s", o.Content)
	}
	if path, err := p.ToolImage("s1", o.Images[0].File); err != nil || path != o.Images[0].Path {
		t.Fatalf("ToolImage: %q %v", path, err)
	}
	for _, bad := range []string{"", "../s1/" + o.Images[0].File, ".", "..", o.Images[0].File + "x"} {
		if _, err := p.ToolImage("s1", bad); !apperr.Is(err, apperr.NotFound) {
			t.Errorf("ToolImage(%q): %v", bad, err)
		}
	}
	if _, err := p.ToolImage("s2", o.Images[0].File); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("another session's image: %v", err)
	}
	// The card: a thumbnail fits 480 px, the full view is the file itself; the tiny one
	// is its own thumbnail.
	mime, thumb, err := p.ToolImageData("s1", o.Images[0].File, false)
	cfg, _, cerr := image.DecodeConfig(bytes.NewReader(thumb))
	if err != nil || cerr != nil || mime != "image/jpeg" || cfg.Width != 480 || cfg.Height != 320 {
		t.Fatalf("thumbnail %s %d×%d %v %v", mime, cfg.Width, cfg.Height, err, cerr)
	}
	if mime, full, err := p.ToolImageData("s1", o.Images[0].File, true); err != nil || mime != "image/png" || !bytes.Equal(full, big) {
		t.Fatalf("full view %s, %d bytes, %v", mime, len(full), err)
	}
	if _, th, err := p.ToolImageData("s1", o.Images[1].File, false); err != nil || !bytes.Equal(th, tiny) {
		t.Fatalf("tiny thumbnail %d bytes %v", len(th), err)
	}
	if err := p.Forget("s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(o.Images[0].Path); !os.IsNotExist(err) {
		t.Fatalf("a deleted session's image stays: %v", err)
	}
}

// TestScaleImage fits the longer side and keeps transparency.
func TestScaleImage(t *testing.T) {
	tests := []struct {
		name     string
		w, h     int
		alpha    uint8
		max      int
		wantMIME string
		wantW    int
		wantH    int
	}{
		{"wide opaque", 1500, 500, 255, 600, "image/jpeg", 600, 200},
		{"tall transparent", 200, 1000, 100, 500, "image/png", 100, 500},
		{"small stays", 300, 200, 255, 2048, "image/jpeg", 300, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := image.NewNRGBA(image.Rect(0, 0, tt.w, tt.h))
			for i := range src.Pix {
				src.Pix[i] = tt.alpha
			}
			src.Set(0, 0, color.NRGBA{1, 2, 3, tt.alpha})
			mime, b, err := tools.ScaleImage(src, tt.max)
			if err != nil || mime != tt.wantMIME {
				t.Fatalf("%s %v", mime, err)
			}
			cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
			if err != nil || cfg.Width != tt.wantW || cfg.Height != tt.wantH {
				t.Fatalf("%d×%d %v", cfg.Width, cfg.Height, err)
			}
		})
	}
}
