package ops

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Bounds of a preview: files above MaxPreviewFile are not diffed (the dialog says so),
// and a diff is cut at MaxPreviewDiff bytes, on a line end.
const (
	MaxPreviewFile = 2 << 20
	MaxPreviewDiff = 256 << 10
)

// PreviewRequest asks what a write (Write, with Content) or an edit (OldString,
// NewString, ReplaceAll) would change in a file, without changing anything: what the
// approval dialog shows before the user allows it.
type PreviewRequest struct {
	Common
	Path       string `json:"path"`
	Write      bool   `json:"write,omitempty"`
	Content    string `json:"content,omitempty"`
	OldString  string `json:"old_string,omitempty"`
	NewString  string `json:"new_string,omitempty"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// PreviewResult is the change as a unified diff (three lines of context) against the
// file as it is now; Created when there is no file yet, Unchanged when the file already
// holds exactly what the call would leave in it. Unshown says why there is no diff for a
// file that exists (it is binary or too large to diff).
type PreviewResult struct {
	Path      string `json:"path"`
	Created   bool   `json:"created,omitempty"`
	Diff      string `json:"diff"`
	Added     int    `json:"added"`
	Removed   int    `json:"removed"`
	Truncated bool   `json:"truncated,omitempty"`
	Unchanged bool   `json:"unchanged,omitempty"`
	Unshown   string `json:"unshown,omitempty"` // binary or too_large
}

func preview(w *workspace, r PreviewRequest) (PreviewResult, error) {
	rel, err := w.rel(r.Path)
	if err != nil {
		return PreviewResult{}, err
	}
	res := PreviewResult{Path: show(rel)}
	old, exists, err := w.current(rel)
	if err != nil {
		return res, err
	}
	if !exists {
		if !r.Write {
			return res, fail(CodeNotFound, show(rel), "%s does not exist", show(rel))
		}
		res.Created = true
	}
	if len(old) > MaxPreviewFile || len(r.Content) > MaxPreviewFile {
		res.Unshown = CodeTooLarge
		return res, nil
	}
	next := []byte(r.Content)
	if !r.Write {
		if next, _, err = replaced(bytes.NewReader(old), rel, EditRequest{Path: r.Path, OldString: r.OldString, NewString: r.NewString, ReplaceAll: r.ReplaceAll}); err != nil {
			return res, err
		}
	}
	if exists && bytes.Equal(old, next) {
		res.Unchanged = true
		return res, nil
	}
	before, okOld := previewText(old)
	after, okNew := previewText(next)
	if !okOld || !okNew {
		res.Unshown = "binary"
		return res, nil
	}
	res.Diff = udiff.Unified("a/"+show(rel), "b/"+show(rel), before, after)
	res.Added, res.Removed = countChanged(res.Diff)
	res.Diff, res.Truncated = cutDiff(res.Diff)
	return res, nil
}

// current is the file's bytes as they are (nil and false when there is none yet), read
// beneath the workspace through no symlink, as the write or edit would open it.
func (w *workspace) current(rel string) ([]byte, bool, error) {
	f, err := w.open(rel, os.O_RDONLY|nonBlock, 0, true)
	var e *Error
	if errors.As(err, &e) && e.Code == CodeNotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if _, err := regular(f, rel); err != nil {
		return nil, false, err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxPreviewFile+1))
	if err != nil {
		return nil, false, fail(CodeIO, show(rel), "read %s: %v", show(rel), err)
	}
	return b, true, nil
}

// previewText is a file's bytes as text to diff: decoded from its encoding, false for
// a binary file.
func previewText(b []byte) (string, bool) {
	if bytes.IndexByte(b, 0) >= 0 && detectEncoding(b).name == "utf-8" {
		return "", false
	}
	s, err := detectEncoding(b).decode(b)
	if err != nil || !utf8.ValidString(s) {
		return "", false
	}
	return s, true
}

// countChanged counts the added and removed lines of a unified diff.
func countChanged(diff string) (added, removed int) {
	for line := range strings.Lines(diff) {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			added++
		case strings.HasPrefix(line, "-"):
			removed++
		}
	}
	return added, removed
}

// cutDiff keeps the diff's first MaxPreviewDiff bytes, ending on a line end.
func cutDiff(diff string) (string, bool) {
	if len(diff) <= MaxPreviewDiff {
		return diff, false
	}
	cut := diff[:MaxPreviewDiff]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i+1]
	}
	return cut, true
}
