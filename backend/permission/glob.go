package permission

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/text/unicode/norm"
)

// pathPattern is a rule's path glob placed like a path: `~` expanded, a relative glob in
// one anchor directory, a leading `**` matching anywhere, and the literal base directory
// with its symlinks resolved (so /tmp/** also matches /private/tmp/x on macOS).
type pathPattern struct {
	lexical string // slash-separated glob over Path.Abs
	real    string // the same over Path.Real
	// folder: the glob names one path without wildcards; a deny or ask rule on it also
	// holds for everything beneath (a denied folder keeps its files).
	folder bool
}

// pattern places a rule's glob: relative globs in every anchor (none: it places nowhere,
// and only unresolved paths meet it).
func (r Resolver) pattern(glob string) []pathPattern {
	g := strings.TrimSpace(glob)
	if h, ok := expandHome(g, r.Home); ok {
		g = h
	}
	g = filepath.ToSlash(g)
	switch {
	case strings.HasPrefix(g, "**"):
		return []pathPattern{{lexical: g, real: g}} // ** also matches a leading / or drive
	case !isAbsGlob(g):
		var out []pathPattern
		rel := cleanGlob(g)
		for _, a := range r.anchors() {
			out = append(out, placeGlob(filepath.ToSlash(filepath.Clean(a))+"/"+rel)...)
		}
		return out
	}
	return placeGlob(g)
}

// placeGlob is an absolute glob over lexical paths, and over real paths with its literal
// base resolved as the OS would, for each Unicode form of the base (the folder on disk
// has one of them).
func placeGlob(g string) []pathPattern {
	g = cleanGlob(g)
	base, rest := g, ""
	if hasMeta(g) {
		base, rest = doublestar.SplitPattern(g)
	}
	var out []pathPattern
	for _, b := range []string{base, norm.NFC.String(base), norm.NFD.String(base)} {
		realBase := escapeGlob(filepath.ToSlash(realPath(filepath.FromSlash(b))))
		pp := pathPattern{lexical: g, real: realBase, folder: rest == ""}
		if rest != "" && rest != "." {
			pp.real = strings.TrimSuffix(realBase, "/") + "/" + rest
		}
		if !containsPattern(out, pp) {
			out = append(out, pp)
		}
	}
	return out
}

func containsPattern(list []pathPattern, p pathPattern) bool {
	for _, q := range list {
		if q == p {
			return true
		}
	}
	return false
}

// isAbsGlob reports whether a slash-separated glob is absolute (Unix root, a UNC share
// or a Windows drive letter).
func isAbsGlob(g string) bool {
	return strings.HasPrefix(g, "/") || (len(g) > 2 && g[1] == ':' && g[2] == '/')
}

// cleanGlob removes `.` and `..` segments and doubled slashes from a glob's literal part.
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

// globMatch compares a glob with a path after both became keys.
func (r Resolver) globMatch(glob, path string, fold, full bool) bool {
	if glob == "" || path == "" {
		return false
	}
	return doublestar.MatchUnvalidated(r.globKey(glob, fold, full), r.key(path, fold, full))
}

// matchAllow reports whether an allow rule's glob covers a path: only where the OS would
// really go counts, so a symlink inside an allowed folder that points out of it is not
// allowed, and an unresolved path never is.
func (r Resolver) matchAllow(pats []pathPattern, p Path) bool {
	if p.Unresolved || p.Real == "" {
		return false
	}
	for _, pp := range pats {
		if r.globMatch(pp.real, p.Real, p.fold, false) {
			return true
		}
	}
	return false
}

// matchAny reports whether a deny or ask rule's glob catches a path by any of its names,
// lexical or real; an unresolved path is caught by every glob.
func (r Resolver) matchAny(pats []pathPattern, p Path) bool {
	if p.Unresolved {
		return true
	}
	for _, pp := range pats {
		globs := []string{pp.real, pp.lexical}
		if pp.folder {
			globs = append(globs, strings.TrimSuffix(pp.real, "/")+"/**", strings.TrimSuffix(pp.lexical, "/")+"/**")
		}
		for _, g := range globs {
			if r.globMatch(g, p.Real, p.fold, true) || r.globMatch(g, p.Abs, p.fold, true) {
				return true
			}
		}
	}
	return false
}
