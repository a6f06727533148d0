package chat

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"strings"

	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/tools"
)

// The limits an image is sent to a vision model within. Larger sides are scaled down
// (providers scale past about 2048 px anyway, and pay for every tile); a file above
// imageSendMax, or with more than imageMaxPixels, is only named by its path and size.
const (
	imageMaxSide   = 2048
	imageKeepBytes = 4 << 20 // an image within the side limit and this size is sent as it is
	imageSendMax   = 20 << 20
	imageMaxPixels = 60_000_000
	// imagesPerRequest is how many of the conversation's latest tool images a request
	// carries; older ones are left to the paths in their tool messages, so a long session
	// of screenshots does not resend all of them every round.
	imagesPerRequest = 8
)

// toolImages are the llm images of a call's saved images: paths, no data.
func toolImages(refs []tools.ImageRef) []llm.Image {
	var out []llm.Image
	for _, r := range refs {
		out = append(out, llm.Image{MIMEType: r.MIMEType, Path: r.Path})
	}
	return out
}

// visionHistory is the history as a request to the model carries it. A tool message
// cannot carry an image in Chat Completions, so for a vision model the images of each run
// of tool messages follow it in one user message (its text says where they come from),
// loaded and scaled by load (only the latest imagesPerRequest); a model without vision
// reads only the tool text, which names each file and its size.
func visionHistory(history []llm.Message, vision bool, load func(llm.Image) (llm.Image, bool)) []llm.Message {
	skip := -imagesPerRequest
	for _, m := range history {
		if m.Role == llm.RoleTool {
			skip += len(m.Images)
		}
	}
	out := make([]llm.Message, 0, len(history)+1)
	var pending []llm.Image
	var names []string
	flush := func() {
		if len(pending) > 0 {
			text := "The images the tool calls above returned, in order: " + strings.Join(names, ", ") + "."
			out = append(out, llm.Message{Role: llm.RoleUser, Content: text, Images: pending})
		}
		pending, names = nil, nil
	}
	for _, m := range history {
		if m.Role != llm.RoleTool {
			flush()
		}
		if m.Role == llm.RoleUser && len(m.Images) > 0 {
			m.Images = userImages(m.Images, vision, load)
		}
		if m.Role == llm.RoleTool && len(m.Images) > 0 {
			imgs := m.Images
			m.Images = nil
			for i, im := range imgs {
				if skip--; !vision || skip >= 0 {
					continue
				}
				if got, ok := load(im); ok {
					pending = append(pending, got)
					names = append(names, fmt.Sprintf("image %d of call %s", i+1, m.ToolCallID))
				}
			}
		}
		out = append(out, m)
	}
	flush()
	return out
}

// loadImage reads a saved tool image for a vision model: as it is when it is within the
// limits, else scaled so its longer side is imageMaxSide and re-encoded (JPEG, PNG when it
// has transparency). The scaled copy is kept beside the original for the next rounds. An
// image it cannot read or that is above the size limits is left to its path (false).
func loadImage(im llm.Image) (llm.Image, bool) {
	st, err := os.Stat(im.Path)
	if err != nil || st.Size() > imageSendMax {
		return llm.Image{}, false
	}
	data, err := os.ReadFile(im.Path)
	if err != nil {
		return llm.Image{}, false
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width*cfg.Height > imageMaxPixels || cfg.Width == 0 || cfg.Height == 0 {
		return llm.Image{}, false
	}
	if max(cfg.Width, cfg.Height) <= imageMaxSide && len(data) <= imageKeepBytes {
		return llm.Image{MIMEType: "image/" + format, Data: data, Path: im.Path}, true
	}
	for _, c := range []string{".model.jpg", ".model.png"} {
		if b, err := os.ReadFile(im.Path + c); err == nil {
			return llm.Image{MIMEType: map[string]string{".model.jpg": "image/jpeg", ".model.png": "image/png"}[c], Data: b, Path: im.Path}, true
		}
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return llm.Image{}, false
	}
	mime, scaled, err := tools.ScaleImage(src, imageMaxSide)
	if err != nil {
		return llm.Image{}, false
	}
	ext := ".model.jpg"
	if mime == "image/png" {
		ext = ".model.png"
	}
	_ = os.WriteFile(im.Path+ext, scaled, 0o600) // a cache: without it the next round scales again
	return llm.Image{MIMEType: mime, Data: scaled, Path: im.Path}, true
}

// userImages are the images the user attached to a message, loaded for a vision model
// (none for another: the message's text names them). They do not count against
// imagesPerRequest: the user chose each one for this conversation.
func userImages(imgs []llm.Image, vision bool, load func(llm.Image) (llm.Image, bool)) []llm.Image {
	if !vision {
		return nil
	}
	var out []llm.Image
	for _, im := range imgs {
		if got, ok := load(im); ok {
			out = append(out, got)
		}
	}
	return out
}
