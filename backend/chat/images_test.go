package chat

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm"
)

func writePNG(t *testing.T, path string, w, h int) {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestVisionHistory: a vision model gets each run of tool messages' images in one user
// message right after it, small ones as they are and large ones scaled to 2048 px; a file
// over the size limit, a missing one, or a model without vision, gets none.
func TestVisionHistory(t *testing.T) {
	dir := t.TempDir()
	small, wide, huge := filepath.Join(dir, "small.png"), filepath.Join(dir, "wide.png"), filepath.Join(dir, "huge.png")
	writePNG(t, small, 40, 30)
	writePNG(t, wide, 2100, 420)
	if err := os.WriteFile(huge, bytes.Repeat([]byte{0}, imageSendMax+1), 0o600); err != nil {
		t.Fatal(err)
	}
	history := []llm.Message{
		{Role: llm.RoleUser, Content: "go"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a"}, {ID: "b"}}},
		{Role: llm.RoleTool, ToolCallID: "a", Content: "shot", Images: []llm.Image{{MIMEType: "image/png", Path: small}, {MIMEType: "image/png", Path: huge}}},
		{Role: llm.RoleTool, ToolCallID: "b", Content: "shot", Images: []llm.Image{{MIMEType: "image/png", Path: wide}, {MIMEType: "image/png", Path: filepath.Join(dir, "gone.png")}}},
		{Role: llm.RoleAssistant, Content: "done"},
	}
	got := visionHistory(history, true, loadImage)
	if len(got) != 6 || got[4].Role != llm.RoleUser || got[5].Content != "done" {
		t.Fatalf("messages %+v", got)
	}
	u := got[4]
	if len(u.Images) != 2 || u.Content != "The images the tool calls above returned, in order: image 1 of call a, image 1 of call b." {
		t.Fatalf("user message %q with %d images", u.Content, len(u.Images))
	}
	if orig, _ := os.ReadFile(small); !bytes.Equal(u.Images[0].Data, orig) || u.Images[0].MIMEType != "image/png" {
		t.Fatal("the small image was not sent as it is")
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(u.Images[1].Data))
	if err != nil || cfg.Width != 2048 || cfg.Height != 409 || format != "jpeg" || u.Images[1].MIMEType != "image/jpeg" {
		t.Fatalf("scaled %d×%d %s %v", cfg.Width, cfg.Height, format, err)
	}
	if _, err := os.Stat(wide + ".model.jpg"); err != nil {
		t.Fatalf("the scaled copy is not kept: %v", err)
	}
	for _, m := range got {
		if m.Role == llm.RoleTool && len(m.Images) != 0 {
			t.Fatal("a tool message still carries images")
		}
	}
	if blind := visionHistory(history, false, loadImage); len(blind) != 5 || len(blind[2].Images) != 0 {
		t.Fatalf("without vision: %+v", blind)
	}
}

// TestVisionHistorySendsOnlyTheLatestImages: a request carries the conversation's latest
// imagesPerRequest images; older ones keep only their paths.
func TestVisionHistorySendsOnlyTheLatestImages(t *testing.T) {
	dir := t.TempDir()
	var history []llm.Message
	for i := 0; i < imagesPerRequest+3; i++ {
		path := filepath.Join(dir, fmt.Sprintf("shot-%d.png", i))
		writePNG(t, path, 10, 10)
		id := fmt.Sprintf("c%d", i)
		history = append(history, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Images: []llm.Image{{MIMEType: "image/png", Path: path}}})
	}
	var sent []string
	for _, m := range visionHistory(history, true, loadImage) {
		if m.Role == llm.RoleUser {
			sent = append(sent, m.Content)
		}
	}
	if len(sent) != imagesPerRequest || !strings.Contains(sent[0], "call c3.") || !strings.Contains(sent[len(sent)-1], fmt.Sprintf("call c%d.", imagesPerRequest+2)) {
		t.Fatalf("sent %d: %q", len(sent), sent)
	}
}
