package ops

import (
	"os"
	"path/filepath"
	"sort"
)

// MaxList bounds the entries one ls returns.
const MaxList = 1000

// ListRequest lists one folder.
type ListRequest struct {
	Common
	Path string `json:"path,omitempty"`
}

// Entry is one entry of a folder.
type Entry struct {
	Name string `json:"name"`
	// Type is file, dir, symlink or other (a device, socket or FIFO).
	Type   string `json:"type"`
	Size   int64  `json:"size,omitempty"`
	Target string `json:"target,omitempty"` // a symlink's target, as written
}

// ListResult is the folder's entries, folders first, then by name.
type ListResult struct {
	Path      string  `json:"path"`
	Entries   []Entry `json:"entries"`
	Total     int     `json:"total"`
	Truncated bool    `json:"truncated,omitempty"`
}

func list(w *workspace, r ListRequest) (ListResult, error) {
	rel, err := w.rel(r.Path)
	if err != nil {
		return ListResult{}, err
	}
	f, err := w.open(rel, os.O_RDONLY, 0, false)
	if err != nil {
		return ListResult{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return ListResult{}, fail(CodeNotDir, show(rel), "%s is not a directory", show(rel))
	}
	des, err := f.ReadDir(-1)
	if err != nil {
		return ListResult{}, openError(rel, err)
	}
	res := ListResult{Path: show(rel), Entries: []Entry{}, Total: len(des)}
	for _, d := range des {
		e := Entry{Name: d.Name(), Type: "other"}
		switch t := d.Type(); {
		case t.IsDir():
			e.Type = "dir"
		case t.IsRegular():
			e.Type = "file"
			// Through the root, not d.Info: the open folder's name is relative, and
			// Info would look it up from the process's working directory.
			if fi, err := w.root.Lstat(filepath.Join(rel, d.Name())); err == nil {
				e.Size = fi.Size()
			}
		case t&os.ModeSymlink != 0:
			e.Type = "symlink"
			e.Target, _ = w.root.Readlink(filepath.Join(rel, d.Name()))
		}
		res.Entries = append(res.Entries, e)
	}
	sort.Slice(res.Entries, func(i, j int) bool {
		a, b := res.Entries[i], res.Entries[j]
		if (a.Type == "dir") != (b.Type == "dir") {
			return a.Type == "dir"
		}
		return a.Name < b.Name
	})
	if len(res.Entries) > MaxList {
		res.Entries, res.Truncated = res.Entries[:MaxList], true
	}
	return res, nil
}
