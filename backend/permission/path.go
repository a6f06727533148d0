package permission

import (
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Path is one place a path argument of a call may lead to. One argument can lead to
// several (a tool with several base directories, a spelling a tool may read two ways);
// Explain lists them all, a deny or ask rule needs one of them to match and an allow rule
// all of them.
type Path struct {
	Raw string `json:"raw"`
	// Abs is Raw made absolute (home or a base directory applied, `..` removed lexically).
	Abs string `json:"abs,omitempty"`
	// Real is where the OS goes: every symlink of the existing part resolved, component by
	// component (a `..` after a symlink goes up from the link's target); the part that does
	// not exist yet is appended as written.
	Real string `json:"real,omitempty"`
	// Unresolved says Cairn cannot tell where the tool takes the path: a relative path
	// with no known base directory, `~user`, a drive-relative Windows path, a file:// URL
	// of another host. It matches every deny and ask rule and never an allow rule.
	Unresolved bool `json:"unresolved,omitempty"`
	// fold: names compare without regard to case where the path lies.
	fold bool
}

// CaseMode says how path names compare.
type CaseMode string

// The case modes; the zero value asks the file system.
const (
	// CaseAuto probes the file system a path lies on (a name looked up with its case
	// swapped), else takes the platform's default: insensitive on macOS and Windows.
	CaseAuto        CaseMode = ""
	CaseSensitive   CaseMode = "sensitive"
	CaseInsensitive CaseMode = "insensitive"
)

// nameRules chooses whose naming rules apply on top of the host's separators: Windows
// drops trailing dots and spaces of a name and reads `name:stream` as the file `name`.
type nameRules int

const (
	hostNames    nameRules = iota // runtime.GOOS decides
	windowsNames                  // as on Windows (tests on other systems)
	posixNames                    // as on Unix
)

// Resolver places paths the way the tool will: relative ones in the directories the tool
// reads them against, `~` in the home directory.
type Resolver struct {
	// Workspace is the session's working directory (absolute); "" when it has none.
	// acceptEdits lets edits inside it pass; relative rule globs start in it.
	Workspace string
	// Bases are the directories the tool reads a relative path against when that is not
	// the workspace: an MCP server's roots and working directory. A relative path is
	// placed in each. nil means the workspace; an empty non-nil list says no directory is
	// known, so relative paths are unresolved.
	Bases []string
	// Home is the user's home directory, for `~` in rules and, unless PathHome is set, in
	// paths; "" leaves `~` unresolved.
	Home string
	// PathHome is where the tool expands `~` in a path argument when that is not Home
	// (an MCP server whose config sets HOME).
	PathHome string
	// Case says how names compare (default: probe the file system).
	Case  CaseMode
	names nameRules
}

// bases are the directories relative paths start from.
func (r Resolver) bases() []string {
	if r.Bases != nil {
		return r.Bases
	}
	if r.Workspace != "" {
		return []string{r.Workspace}
	}
	return nil
}

// anchors are where relative rule globs start: the workspace and the tool's bases.
func (r Resolver) anchors() []string {
	var out []string
	for _, d := range append([]string{r.Workspace}, r.Bases...) {
		if d != "" && filepath.IsAbs(d) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func (r Resolver) windows() bool {
	switch r.names {
	case windowsNames:
		return true
	case posixNames:
		return false
	}
	return runtime.GOOS == "windows"
}

// workspace is the workspace with its symlinks resolved.
func (r Resolver) workspace() string {
	if r.Workspace == "" || !filepath.IsAbs(r.Workspace) {
		return ""
	}
	return realPath(filepath.Clean(r.Workspace))
}

// expandHome replaces a leading ~ or ~/ with home; ok is false for a `~` it cannot
// place (no home directory, or another user's `~name`).
func expandHome(p, home string) (string, bool) {
	if !strings.HasPrefix(p, "~") {
		return p, true
	}
	if home == "" {
		return p, false
	}
	if p == "~" {
		return home, true
	}
	if strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		// Not filepath.Join: it would remove `..` before symlinks are seen.
		return strings.TrimRight(home, `/\`) + string(filepath.Separator) + p[2:], true
	}
	return p, false
}

// pathHome is where the tool expands `~` in a path argument.
func (r Resolver) pathHome() string {
	if r.PathHome != "" {
		return r.PathHome
	}
	return r.Home
}

// Resolve places one path argument in every place the tool may take it.
func (r Resolver) Resolve(raw string) []Path { return r.resolveFrom(raw, r.bases()) }

// resolveFrom places a path with relative ones starting in bases.
func (r Resolver) resolveFrom(raw string, bases []string) []Path {
	var out []Path
	seen := map[string]bool{}
	for _, sp := range r.spellings(raw) {
		for _, p := range r.place(raw, sp, bases) {
			// Spellings that differ only in their Unicode form compare the same.
			k := norm.NFC.String(p.Abs) + "\x00" + norm.NFC.String(p.Real)
			if p.Unresolved {
				k = "\x00unresolved"
			}
			if p.fold {
				k += "\x00fold"
			}
			if !seen[k] {
				seen[k] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// spellings are the texts a tool may make of a path argument: as written and trimmed, a
// file:// URL's path, backslashes as separators, and the NFC and NFD forms of each (a
// name on disk has one of them; Lstat finds only that one). "" stands for a URL that
// names no local file.
func (r Resolver) spellings(raw string) []string {
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(raw)
	add(strings.TrimSpace(raw))
	if p, ok := fileURLPath(strings.TrimSpace(raw), r.windows()); ok {
		add(p)
	}
	if !r.windows() && strings.Contains(raw, `\`) {
		for _, s := range slices.Clone(out) {
			add(strings.ReplaceAll(s, `\`, "/"))
		}
	}
	for _, s := range slices.Clone(out) {
		add(norm.NFC.String(s))
		add(norm.NFD.String(s))
	}
	return out
}

// fileURLPath is the local path a file:// URL names; "" (ok) for one naming another
// host, which no rule can place.
func fileURLPath(s string, windows bool) (string, bool) {
	if len(s) < 5 || !strings.EqualFold(s[:5], "file:") {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || !strings.EqualFold(u.Scheme, "file") {
		return "", true
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		if windows {
			return `\\` + u.Host + filepath.FromSlash(u.Path), true // a UNC share
		}
		return "", true
	}
	p := u.Path
	if p == "" {
		p = u.Opaque // file:relative/x
	}
	if windows && len(p) > 2 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // /C:/x
	}
	return filepath.FromSlash(p), true
}

// place makes one spelling absolute, in each base when it is relative.
func (r Resolver) place(raw, p string, bases []string) []Path {
	unresolved := []Path{{Raw: raw, Unresolved: true}}
	if p == "" {
		if strings.TrimSpace(raw) == "" {
			return nil
		}
		return unresolved
	}
	p, ok := expandHome(p, r.pathHome())
	if !ok || driveRelative(p) {
		return unresolved
	}
	if filepath.IsAbs(p) {
		return r.located(raw, p)
	}
	if len(bases) == 0 {
		return unresolved
	}
	var out []Path
	for _, b := range bases {
		switch {
		case b == "" || !filepath.IsAbs(b):
			out = append(out, unresolved...)
		case rootRelative(p):
			out = append(out, r.located(raw, filepath.VolumeName(b)+p)...)
		default:
			out = append(out, r.located(raw, strings.TrimRight(b, `/\`)+string(filepath.Separator)+p)...)
		}
	}
	return out
}

// driveRelative reports a Windows path on a drive whose current directory Cairn does not
// know: `C:x`.
func driveRelative(p string) bool {
	return runtime.GOOS == "windows" && !filepath.IsAbs(p) && filepath.VolumeName(p) != ""
}

// rootRelative reports a Windows path from the root of the current drive (`\x`): it lies
// on the drive of the directory it starts in.
func rootRelative(p string) bool {
	return runtime.GOOS == "windows" && !filepath.IsAbs(p) && (strings.HasPrefix(p, `\`) || strings.HasPrefix(p, "/"))
}

// located is an absolute path as the OS walks it and, when different, as a tool that
// cleans it first (Node's path.resolve, Go's filepath.Join) walks it.
func (r Resolver) located(raw, p string) []Path {
	abs := filepath.Clean(p)
	walked, cleaned := realPath(p), realPath(abs)
	out := []Path{{Raw: raw, Abs: abs, Real: walked, fold: r.folds(walked)}}
	if cleaned != walked {
		out = append(out, Path{Raw: raw, Abs: abs, Real: cleaned, fold: r.folds(cleaned)})
	}
	return out
}

// Inside reports whether a resolved path lies in the workspace (or is the workspace).
func (r Resolver) Inside(p Path) bool {
	ws := r.workspace()
	if ws == "" || p.Real == "" || p.Unresolved {
		return false
	}
	return within(r.key(ws, p.fold, false), r.key(p.Real, p.fold, false))
}

// within reports whether the slash-separated key p is dir or below it.
func within(dir, p string) bool {
	dir = strings.TrimSuffix(dir, "/")
	return p == dir || strings.HasPrefix(p, dir+"/")
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
			return canonical(next, comps)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		target, err := os.Readlink(next)
		if err != nil || links > maxLinks {
			return canonical(next, comps)
		}
		if filepath.IsAbs(target) {
			tv := filepath.VolumeName(target)
			resolved = tv + string(filepath.Separator)
			target = target[len(tv):]
		}
		comps = append(splitPath(target), comps...)
	}
	return canonical(resolved, nil)
}

// canonical joins a walked path with the rest that does not exist. On Windows the
// existing part is given its names as stored (EvalSymlinks expands 8.3 short names such
// as PROGRA~1 and takes the stored case), which Lstat alone leaves as written.
func canonical(walked string, rest []string) string {
	if runtime.GOOS == "windows" {
		if _, err := os.Lstat(walked); err == nil {
			if c, err := filepath.EvalSymlinks(walked); err == nil {
				walked = c
			}
		} else if c, err := filepath.EvalSymlinks(filepath.Dir(walked)); err == nil {
			walked = filepath.Join(c, filepath.Base(walked))
		}
	}
	return filepath.Join(append([]string{walked}, rest...)...)
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == filepath.Separator })
}
