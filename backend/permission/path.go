package permission

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Path is a path argument of a call, as the model wrote it and as the OS would open it.
type Path struct {
	Raw string `json:"raw"`
	// Abs is Raw made absolute (home and workspace applied, `..` removed lexically); ""
	// when Raw is relative and the session has no workspace.
	Abs string `json:"abs,omitempty"`
	// Real is Abs with every symlink resolved, component by component (a `..` after a
	// symlink goes up from the link's target, as the OS does); the part that does not
	// exist yet is appended as written.
	Real string `json:"real,omitempty"`
}

// Resolver places paths: relative ones in the session's workspace, `~` in the home
// directory.
type Resolver struct {
	// Workspace is the session's working directory (absolute); "" when it has none.
	Workspace string
	// Home is the user's home directory; "" leaves `~` as written.
	Home string
}

// workspace is the workspace with its symlinks resolved.
func (r Resolver) workspace() string {
	if r.Workspace == "" || !filepath.IsAbs(r.Workspace) {
		return ""
	}
	return realPath(filepath.Clean(r.Workspace))
}

// expandHome replaces a leading ~ or ~/.
func (r Resolver) expandHome(p string) string {
	if r.Home == "" {
		return p
	}
	if p == "~" {
		return r.Home
	}
	if strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		// Not filepath.Join: it would remove `..` before symlinks are seen.
		return strings.TrimRight(r.Home, `/\`) + string(filepath.Separator) + p[2:]
	}
	return p
}

// Resolve places one path argument; base is the directory relative paths start from
// ("" = the workspace).
func (r Resolver) Resolve(raw, base string) Path {
	out := Path{Raw: raw}
	p := r.expandHome(strings.TrimSpace(raw))
	if p == "" {
		return out
	}
	if !filepath.IsAbs(p) {
		if base == "" {
			base = r.Workspace
		}
		if base == "" || !filepath.IsAbs(base) {
			return out
		}
		p = strings.TrimRight(base, `/\`) + string(filepath.Separator) + p
	}
	out.Abs = filepath.Clean(p)
	// Resolve from the path as written, so `link/..` goes where the OS goes.
	out.Real = realPath(p)
	return out
}

// Inside reports whether a resolved path lies in the workspace (or is the workspace).
func (r Resolver) Inside(p Path) bool {
	ws := r.workspace()
	if ws == "" || p.Real == "" {
		return false
	}
	return within(ws, p.Real)
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// maxLinks bounds symlink hops, as the OS does (ELOOP).
const maxLinks = 40

// realPath resolves every symlink of an absolute path, component by component; from
// the first component that does not exist the rest is appended lexically.
func realPath(p string) string {
	vol := filepath.VolumeName(p)
	root := vol + string(filepath.Separator)
	comps := splitPath(p[len(vol):])
	resolved := root
	links := 0
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, comps...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		target, err := os.Readlink(next)
		if err != nil || links > maxLinks {
			return filepath.Join(append([]string{next}, comps...)...)
		}
		if filepath.IsAbs(target) {
			tv := filepath.VolumeName(target)
			resolved = tv + string(filepath.Separator)
			target = target[len(tv):]
		}
		comps = append(splitPath(target), comps...)
	}
	return resolved
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == filepath.Separator })
}

// pathPattern is a rule's path glob placed like a path: `~` expanded, relative globs
// inside the workspace, a leading `**` matching anywhere, and the literal base directory
// with its symlinks resolved (so /tmp/** also matches /private/tmp/x on macOS).
type pathPattern struct {
	lexical string // slash-separated glob over Path.Abs
	real    string // the same over Path.Real
	rel     string // relative glob, for relative paths when there is no workspace
}

func (r Resolver) pattern(glob string) pathPattern {
	g := filepath.ToSlash(strings.TrimSpace(r.expandHome(strings.TrimSpace(glob))))
	switch {
	case strings.HasPrefix(g, "**"):
		return pathPattern{lexical: g, real: g, rel: g} // ** also matches a leading / or drive
	case !isAbsGlob(g):
		ws := r.Workspace
		if ws == "" || !filepath.IsAbs(ws) {
			return pathPattern{rel: cleanGlob(g)}
		}
		rel := cleanGlob(g)
		g = filepath.ToSlash(filepath.Clean(ws)) + "/" + rel
		out := r.placeGlob(g)
		out.rel = rel
		return out
	}
	return r.placeGlob(g)
}

func (r Resolver) placeGlob(g string) pathPattern {
	g = cleanGlob(g)
	if !hasMeta(g) {
		return pathPattern{lexical: g, real: escapeGlob(filepath.ToSlash(realPath(filepath.FromSlash(g))))}
	}
	base, rest := doublestar.SplitPattern(g)
	realBase := filepath.ToSlash(realPath(filepath.FromSlash(base)))
	out := pathPattern{lexical: g, real: g}
	if rest == "" || rest == "." {
		out.real = escapeGlob(realBase)
		return out
	}
	out.real = strings.TrimSuffix(escapeGlob(realBase), "/") + "/" + rest
	return out
}

// isAbsGlob reports whether a slash-separated glob is absolute (Unix root or a Windows
// drive letter).
func isAbsGlob(g string) bool {
	return strings.HasPrefix(g, "/") || (len(g) > 2 && g[1] == ':' && g[2] == '/')
}

// cleanGlob removes `.` and `..` segments from a glob's literal part.
func cleanGlob(g string) string {
	base, rest := doublestar.SplitPattern(g)
	if base == "." && !strings.HasPrefix(g, "./") {
		return g // the glob starts with a meta character: nothing to clean
	}
	b := filepath.ToSlash(filepath.Clean(filepath.FromSlash(base)))
	if rest == "" {
		return b
	}
	return strings.TrimSuffix(b, "/") + "/" + rest
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[{\`) }

func escapeGlob(s string) string {
	if !hasMeta(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// matchAllow reports whether an allow rule's glob covers a path: only where the OS would
// really go counts, so a symlink inside an allowed folder that points out of it is not
// allowed.
func (pp pathPattern) matchAllow(p Path) bool {
	if p.Real == "" {
		return false
	}
	return pp.real != "" && doublestar.MatchUnvalidated(pp.real, filepath.ToSlash(p.Real))
}

// matchAny reports whether a deny or ask rule's glob catches a path by any of its
// names: as written (relative), lexical or real.
func (pp pathPattern) matchAny(p Path) bool {
	if pp.real != "" && p.Real != "" && doublestar.MatchUnvalidated(pp.real, filepath.ToSlash(p.Real)) {
		return true
	}
	if pp.lexical != "" && p.Abs != "" && doublestar.MatchUnvalidated(pp.lexical, filepath.ToSlash(p.Abs)) {
		return true
	}
	if pp.lexical != "" && p.Real != "" && doublestar.MatchUnvalidated(pp.lexical, filepath.ToSlash(p.Real)) {
		return true
	}
	if pp.rel != "" && p.Abs == "" && p.Raw != "" {
		return doublestar.MatchUnvalidated(pp.rel, cleanGlob(filepath.ToSlash(p.Raw)))
	}
	return false
}
