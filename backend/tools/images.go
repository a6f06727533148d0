package tools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig of the image types MCP servers send
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
)

// Image is a picture a tool returned (an MCP image content block), whole.
type Image struct {
	MIMEType string
	Data     []byte
}

// ImageRef is a tool's image as Cairn keeps it: the file the pipeline wrote it to, whole
// (a 12 MB full-page screenshot is 12 MB on disk), under <DataDir>/tool-images/<session>/.
// The model reads its path and size; a vision model gets it as an image too (chat); the
// tool card shows it through ToolImage.
type ImageRef struct {
	File     string `json:"file"` // base name in the session's image folder
	Path     string `json:"path"` // absolute path
	MIMEType string `json:"mimeType"`
	Bytes    int    `json:"bytes"`
	Width    int    `json:"width,omitempty"` // 0 when the data is no image Cairn can read
	Height   int    `json:"height,omitempty"`
	SHA256   string `json:"sha256"`
}

// ImageExt is the file extension for a MIME type ("" for one Cairn does not know).
func ImageExt(mime string) string {
	switch strings.ToLower(strings.TrimSpace(strings.SplitN(mime, ";", 2)[0])) {
	case "image/png":
		return ".png"
	case "image/jpeg", "image/jpg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "image/svg+xml":
		return ".svg"
	}
	return ".bin"
}

// imageSessionDir is where a session's tool images are kept.
func (p *Pipeline) imageSessionDir(session string) string {
	return filepath.Join(p.imageDir, safeFileName(cmp0(session, "_"), "session"))
}

// saveImages writes a call's images to the session's image folder and says each one in
// the text the model reads: its type, size in pixels and bytes, and path, so a model that
// cannot see images can still hand the file on.
func (p *Pipeline) saveImages(call Call, imgs []Image) ([]ImageRef, string, error) {
	if len(imgs) == 0 {
		return nil, "", nil
	}
	dir := p.imageSessionDir(sessionOf(call))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", err
	}
	refs := make([]ImageRef, 0, len(imgs))
	var text strings.Builder
	for i, img := range imgs {
		sum := sha256.Sum256(img.Data)
		ref := ImageRef{File: fmt.Sprintf("%s-%d%s", safeFileName(call.ID, "call"), i+1, ImageExt(img.MIMEType)),
			MIMEType: img.MIMEType, Bytes: len(img.Data), SHA256: hex.EncodeToString(sum[:])}
		ref.Path = filepath.Join(dir, ref.File)
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data)); err == nil {
			ref.Width, ref.Height = cfg.Width, cfg.Height
		}
		if err := os.WriteFile(ref.Path, img.Data, 0o600); err != nil {
			return nil, "", err
		}
		refs = append(refs, ref)
		dims := ""
		if ref.Width > 0 {
			dims = fmt.Sprintf(", %d×%d px", ref.Width, ref.Height)
		}
		fmt.Fprintf(&text, "\n[image %d of %d: %s%s, %s (%d bytes), saved at %s]", i+1, len(imgs), img.MIMEType, dims,
			humanBytes(ref.Bytes), ref.Bytes, ref.Path)
	}
	return refs, strings.TrimPrefix(text.String(), "\n"), nil
}

// withImages saves the result's images and adds their lines to its content. A failure to
// save them is said in the content: the rest of the result still reaches the model.
func (p *Pipeline) withImages(call Call, res Result) (Result, []ImageRef) {
	refs, text, err := p.saveImages(call, res.Images)
	if err != nil {
		text = fmt.Sprintf("[%d image(s) could not be saved: %v]", len(res.Images), err)
	}
	if text != "" {
		res.Content = strings.TrimSpace(res.Content + "\n\n" + text)
	}
	return res, refs
}

// ToolImage is the path of one of a session's tool images, for the tool card. file must
// be a name the pipeline gave (ImageRef.File): anything else, or a file that is gone, is
// not found, so a window can never name another file.
func (p *Pipeline) ToolImage(sessionID, file string) (string, error) {
	if file == "" || safeFileName(file, "") != file || strings.HasPrefix(file, ".") {
		return "", apperr.New(apperr.NotFound, "no tool image %q", file).WithParam("name", file)
	}
	path := filepath.Join(p.imageSessionDir(sessionID), file)
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "", apperr.New(apperr.NotFound, "no tool image %q in this conversation", file).WithParam("name", file)
	}
	return path, nil
}

// ScaleImage fits src into maxSide × maxSide (never enlarging) and encodes it: PNG when it
// has transparency (JPEG would turn it black), else JPEG at quality 85. It returns the
// MIME type and the bytes.
func ScaleImage(src image.Image, maxSide int) (string, []byte, error) {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if long := max(w, h); long > maxSide {
		w, h = max(1, w*maxSide/long), max(1, h*maxSide/long)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	var buf bytes.Buffer
	if !dst.Opaque() {
		err := png.Encode(&buf, dst)
		return "image/png", buf.Bytes(), err
	}
	err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
	return "image/jpeg", buf.Bytes(), err
}

// The sizes ToolImageData hands a window: a thumbnail fits thumbSide; the full view is
// the file itself up to fullMaxBytes, above that a copy fitting fullSide.
const (
	thumbSide    = 480
	thumbBytes   = 256 << 10
	fullSide     = 4096
	fullMaxBytes = 16 << 20
)

// ToolImageData is a session's tool image for the tool card: a thumbnail, or the image
// itself for the full view (scaled only when it is very large). An image Cairn cannot
// decode is returned as it is only for the full view.
func (p *Pipeline) ToolImageData(sessionID, file string, full bool) (string, []byte, error) {
	path, err := p.ToolImage(sessionID, file)
	if err != nil {
		return "", nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, apperr.Wrap(err, apperr.NotFound, "read tool image %q", file).WithParam("name", file)
	}
	cfg, format, cfgErr := image.DecodeConfig(bytes.NewReader(data))
	side, limit := thumbSide, thumbBytes
	if full {
		side, limit = fullSide, fullMaxBytes
	}
	switch {
	case cfgErr != nil && full:
		return imageMIME(file), data, nil
	case cfgErr != nil:
		return "", nil, apperr.New(apperr.NotFound, "tool image %q is no image Cairn can show", file).WithParam("name", file)
	case (full || max(cfg.Width, cfg.Height) <= side) && len(data) <= limit:
		return "image/" + format, data, nil
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return "", nil, apperr.Wrap(err, apperr.NotFound, "decode tool image %q", file).WithParam("name", file)
	}
	return ScaleImage(src, side)
}

// imageMIME is the MIME type of a saved image by its extension.
func imageMIME(file string) string {
	for _, m := range []string{"image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml"} {
		if strings.HasSuffix(file, ImageExt(m)) {
			return m
		}
	}
	return "application/octet-stream"
}
