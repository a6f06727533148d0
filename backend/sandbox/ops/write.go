package ops

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxWrite bounds the content of one write or the file one edit rewrites.
const MaxWrite = 16 << 20

// WriteRequest creates or overwrites a file with Content (UTF-8), making its folders.
type WriteRequest struct {
	Common
	Path    string `json:"path"`
	Content string `json:"content"`
}

// WriteResult says what a write did.
type WriteResult struct {
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Bytes   int    `json:"bytes"`
}

func write(w *workspace, r WriteRequest) (WriteResult, error) {
	rel, err := w.rel(r.Path)
	if err != nil {
		return WriteResult{}, err
	}
	if err := w.checkWritable(rel); err != nil {
		return WriteResult{}, err
	}
	if len(r.Content) > MaxWrite {
		return WriteResult{}, fail(CodeTooLarge, show(rel), "the content is %d bytes; one write takes at most %d", len(r.Content), MaxWrite)
	}
	f, created, err := w.openForWrite(rel)
	if err != nil {
		return WriteResult{}, err
	}
	if err := replaceContent(f, []byte(r.Content)); err != nil {
		return WriteResult{}, fail(CodeIO, show(rel), "write %s: %v", show(rel), err)
	}
	return WriteResult{Path: show(rel), Created: created, Bytes: len(r.Content)}, nil
}

// openForWrite opens an existing regular file for writing, or creates it (and its
// folders); no symlink may be on the way.
func (w *workspace) openForWrite(rel string) (*os.File, bool, error) {
	for range 2 {
		f, err := w.open(rel, os.O_RDWR|nonBlock, 0, true)
		if err == nil {
			if _, err := regular(f, rel); err != nil {
				_ = f.Close()
				return nil, false, err
			}
			return f, false, nil
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeNotFound {
			return nil, false, err
		}
		if dir := filepath.Dir(rel); dir != "." {
			if err := w.root.MkdirAll(dir, 0o755); err != nil {
				return nil, false, openError(dir, err)
			}
		}
		f, err = w.open(rel, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644, true)
		if err == nil {
			return f, true, nil
		}
		if !errors.Is(unwrapPath(err), os.ErrExist) && !strings.Contains(err.Error(), "exists") {
			return nil, false, err
		}
	}
	return nil, false, fail(CodeIO, show(rel), "%s kept changing while it was written", show(rel))
}

// replaceContent makes data the whole content of f and closes it.
func replaceContent(f *os.File, data []byte) error {
	err := f.Truncate(0)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
