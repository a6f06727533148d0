package docparse

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// ParseFile parses the file at path; a file that cannot be opened is not_found or
// doc_corrupt, a directory or device doc_unsupported_type.
func ParseFile(ctx context.Context, path string, opts Options) (*Document, error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, apperr.Wrap(err, apperr.NotFound, "%s", name).WithParam("name", name)
		}
		return nil, errCorrupt(name, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, errCorrupt(name, err)
	}
	if !st.Mode().IsRegular() {
		return nil, errUnsupported(name, "not a regular file")
	}
	return Parse(ctx, name, f, st.Size(), opts)
}

// SupportedExtension reports whether a file name has an extension (or, for Makefile and
// the like, a name) this package reads, for skipping the rest of a folder cheaply. Parse
// still decides by content: a file with no extension may be text.
func SupportedExtension(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return extFormats[ext] != "" || codeExts[ext] || codeNames[strings.ToLower(filepath.Base(name))]
}
