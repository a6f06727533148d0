package ops

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
)

// workspace is an open workspace: the directory every path of a request is beneath.
type workspace struct {
	dir       string
	root      *os.Root
	protected []string
	beneath   beneath // the platform's atomic beneath-open, when it has one
}

func openWorkspace(c Common) (*workspace, error) {
	if c.Workspace == "" || !filepath.IsAbs(c.Workspace) {
		return nil, fail(CodeBadRequest, "", "the workspace must be an absolute path")
	}
	dir := filepath.Clean(c.Workspace)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fail(CodeNotFound, dir, "cannot open the workspace: %v", unwrapPath(err))
	}
	for _, p := range c.Protected {
		if !doublestar.ValidatePattern(p) {
			_ = root.Close()
			return nil, fail(CodeBadRequest, p, "protected path %q is not a valid pattern", p)
		}
	}
	w := &workspace{dir: dir, root: root, protected: c.Protected}
	w.beneath = openBeneathDir(dir)
	return w, nil
}

func (w *workspace) close() {
	_ = w.root.Close()
	w.beneath.close()
}

// rel turns a path the model gave into one relative to the workspace, cleaned: relative
// paths start in the workspace, absolute ones must lie in it, and none may climb out with
// `..`. It is the lexical check; opening beneath the root is the real one.
func (w *workspace) rel(p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", fail(CodeBadRequest, p, "the path contains a NUL byte")
	}
	if p == "" {
		return ".", nil
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(w.dir, filepath.Clean(p))
		if err != nil {
			return "", fail(CodeOutside, p, "%s is outside the workspace %s", p, w.dir)
		}
		p = r
	}
	r := filepath.Clean(p)
	if r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) || filepath.VolumeName(r) != "" {
		return "", fail(CodeOutside, p, "%s is outside the workspace %s", p, w.dir)
	}
	return r, nil
}

// show is how a relative path is named in results: slash-separated, "." for the workspace.
func show(rel string) string { return filepath.ToSlash(rel) }

// openRead opens a regular file for reading, beneath the workspace. Symlinks may be
// followed while they stay inside; a hard-linked file is refused, since its other name
// may be outside the workspace.
func (w *workspace) openRead(rel string) (*os.File, fs.FileInfo, error) {
	f, err := w.open(rel, os.O_RDONLY|nonBlock, 0, false)
	if err != nil {
		return nil, nil, err
	}
	fi, err := regular(f, rel)
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// regular checks that an open file is a plain file with one name.
func regular(f *os.File, rel string) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fail(CodeIO, show(rel), "stat %s: %v", show(rel), err)
	}
	switch {
	case fi.IsDir():
		return nil, fail(CodeIsDir, show(rel), "%s is a directory", show(rel))
	case !fi.Mode().IsRegular():
		return nil, fail(CodeNotRegular, show(rel), "%s is not a regular file (%s)", show(rel), fi.Mode().Type())
	case links(fi) > 1:
		return nil, fail(CodeHardlinked, show(rel), "%s has %d hard links: another name of it may be outside the workspace, so the sandbox's tools do not touch it", show(rel), links(fi))
	}
	return fi, nil
}

// open opens rel beneath the workspace: atomically with the platform's beneath-open
// where there is one (noLinks: no symlink anywhere on the way), else through os.Root.
func (w *workspace) open(rel string, flag int, perm os.FileMode, noLinks bool) (*os.File, error) {
	f, err := w.beneath.open(rel, flag, perm, noLinks)
	if errors.Is(err, errNoBeneath) {
		f, err = w.root.OpenFile(rel, flag, perm)
	}
	if err != nil {
		return nil, openError(rel, err)
	}
	return f, nil
}

// checkWritable refuses a write to a protected path and one whose way goes through a
// symlink (which could lead into a protected path, or be swapped for one).
func (w *workspace) checkWritable(rel string) error {
	slash := show(rel)
	if rel == "." {
		return fail(CodeIsDir, slash, "the workspace itself is a directory")
	}
	for _, p := range w.protected {
		p = strings.TrimSuffix(p, "/")
		if ok, _ := doublestar.Match(p, slash); ok || under(p, slash) {
			return fail(CodeProtected, slash, "%s is protected (%s): the sandbox keeps it read-only unless the user allows it", slash, p)
		}
	}
	parts := strings.Split(slash, "/")
	for i := range parts {
		sub := path.Join(parts[:i+1]...)
		fi, err := w.root.Lstat(filepath.FromSlash(sub))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return openError(sub, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fail(CodeSymlinked, slash, "%s goes through the symlink %s: the sandbox's tools do not write through symlinks", slash, sub)
		}
	}
	return nil
}

// under reports whether slash is under the protected pattern p (a folder and all in it).
func under(p, slash string) bool {
	for d := path.Dir(slash); d != "." && d != "/"; d = path.Dir(d) {
		if ok, _ := doublestar.Match(p, d); ok {
			return true
		}
	}
	return false
}

// openError turns an open's error into the op's refusal.
func openError(rel string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	slash := show(rel)
	inner := unwrapPath(err)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail(CodeNotFound, slash, "%s does not exist", slash)
	case errors.Is(err, syscall.EXDEV), errors.Is(err, syscall.ELOOP), strings.Contains(inner.Error(), "escapes"):
		return fail(CodeOutside, slash, "%s leads outside the workspace (through a symlink or ..)", slash)
	case errors.Is(err, syscall.ENOTDIR):
		return fail(CodeNotDir, slash, "a part of %s is not a directory", slash)
	case errors.Is(err, syscall.EISDIR):
		return fail(CodeIsDir, slash, "%s is a directory", slash)
	case errors.Is(err, syscall.ENXIO):
		return fail(CodeNotRegular, slash, "%s is not a regular file", slash)
	case errors.Is(err, fs.ErrPermission):
		return fail(CodeIO, slash, "%s: permission denied", slash)
	}
	return fail(CodeIO, slash, "%s: %v", slash, inner)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
