package ops

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// MaxWalk bounds the entries one grep or find looks at.
const MaxWalk = 200_000

// skipDirs are folders a walk does not enter unless the walk starts in them or the
// pattern names them: version control's own files and installed dependencies.
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true}

// walked is one file a walk found: its path relative to the workspace (slash-separated)
// and its entry.
type walked struct {
	rel string
	d   fs.DirEntry
}

// walk visits the regular files under start (a workspace-relative path), in lexical order,
// without following symlinks; enter decides about folders the walk would skip.
func (w *workspace) walk(start string, enter func(dir string) bool, visit func(walked) bool) (truncated bool, err error) {
	seen := 0
	fsys := w.root.FS()
	err = fs.WalkDir(fsys, show(start), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == show(start) {
				return openError(filepath.FromSlash(p), err)
			}
			return nil // an unreadable folder is left out
		}
		if seen++; seen > MaxWalk {
			truncated = true
			return fs.SkipAll
		}
		if d.IsDir() {
			if p != show(start) && skipDirs[d.Name()] && !enter(p) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // symlinks, devices, sockets: a walk does not follow or read them
		}
		if !visit(walked{rel: p, d: d}) {
			return fs.SkipAll
		}
		return nil
	})
	var e *Error
	if err != nil && !errors.As(err, &e) {
		err = openError(start, err)
	}
	return truncated, err
}

// startDir resolves a walk's starting folder.
func (w *workspace) startDir(p string) (string, error) {
	rel, err := w.rel(p)
	if err != nil {
		return "", err
	}
	fi, err := w.root.Stat(rel)
	if err != nil {
		return "", openError(rel, err)
	}
	if !fi.IsDir() {
		return "", fail(CodeNotDir, show(rel), "%s is not a directory", show(rel))
	}
	return rel, nil
}

// FindRequest lists the files whose path (relative to Path) matches Pattern, a glob with
// ** (doublestar).
type FindRequest struct {
	Common
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
	Limit   int    `json:"limit,omitempty"`
}

// FindResult is the matching files, newest first.
type FindResult struct {
	Files     []string `json:"files"`
	Total     int      `json:"total"`
	Truncated bool     `json:"truncated,omitempty"`
}

// DefaultFindLimit is how many files a find returns unless asked for fewer or more.
const DefaultFindLimit = 500

func find(w *workspace, r FindRequest) (FindResult, error) {
	if r.Pattern == "" || !doublestar.ValidatePattern(r.Pattern) {
		return FindResult{}, fail(CodeBadPattern, "", "%q is not a valid glob pattern", r.Pattern)
	}
	start, err := w.startDir(r.Path)
	if err != nil {
		return FindResult{}, err
	}
	limit := r.Limit
	if limit <= 0 || limit > 5000 {
		limit = DefaultFindLimit
	}
	type hit struct {
		rel string
		mod int64
	}
	var hits []hit
	truncated, err := w.walk(start, func(dir string) bool { return mentions(r.Pattern, dir) }, func(f walked) bool {
		within := strings.TrimPrefix(f.rel, show(start)+"/")
		if show(start) == "." {
			within = f.rel
		}
		if ok, _ := doublestar.Match(r.Pattern, within); ok {
			var mod int64
			if fi, err := f.d.Info(); err == nil {
				mod = fi.ModTime().UnixNano()
			}
			hits = append(hits, hit{f.rel, mod})
		}
		return true
	})
	if err != nil {
		return FindResult{}, err
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].mod > hits[j].mod })
	res := FindResult{Files: []string{}, Total: len(hits), Truncated: truncated}
	for i, h := range hits {
		if i == limit {
			res.Truncated = true
			break
		}
		res.Files = append(res.Files, h.rel)
	}
	return res, nil
}

// mentions reports whether a pattern names a skipped folder, so the walk enters it.
func mentions(pattern, dir string) bool {
	name := path.Base(dir)
	return strings.Contains(pattern, name)
}
