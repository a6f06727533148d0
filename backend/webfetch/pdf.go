package webfetch

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfText is the plain text of a PDF, page after page. The reader panics on some
// malformed files; a PDF is a stranger's input, so that is an error, not a crash.
func pdfText(data []byte) (text, title string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", "", fmt.Errorf("read PDF: %w", err)
	}
	rd, err := r.GetPlainText()
	if err != nil {
		return "", "", fmt.Errorf("read PDF text: %w", err)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return "", "", fmt.Errorf("read PDF text: %w", err)
	}
	title = r.Trailer().Key("Info").Key("Title").Text()
	return strings.TrimSpace(string(b)), strings.TrimSpace(title), nil
}
