package permission

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// key is the form a path or a glob is compared in: slash-separated, Unicode NFC (macOS
// hands out NFD names, a model may write either), with Windows' naming rules where they
// apply, and case-folded when the path lies on a file system that ignores case. full
// folding (ß = ss, the widest Unicode equivalence) serves deny and ask rules; allow rules
// fold letter by letter, so an allow never stretches over names a file system keeps
// apart.
func (r Resolver) key(s string, fold, full bool) string {
	return r.globKey(filepath.ToSlash(s), fold, full)
}

// globKey is key for a glob, which is slash-separated already (a backslash in it
// escapes).
func (r Resolver) globKey(s string, fold, full bool) string {
	s = norm.NFC.String(s)
	if r.windows() {
		s = windowsName(s)
	}
	switch {
	case !fold:
		return s
	case full:
		return cases.Fold().String(s) // a Caser holds state: one per use
	default:
		return strings.Map(unicode.ToUpper, s)
	}
}

// windowsName applies what Win32 does to a name before the file system sees it: the
// `\\?\` and `\\.\` prefixes name the same files, trailing dots and spaces are dropped
// (`secret.txt.` opens secret.txt) and `name:stream` (`x::$DATA`, `dir::$INDEX_ALLOCATION`)
// is a stream of the file name. s is slash-separated.
func windowsName(s string) string {
	for _, pre := range []string{"//?/UNC/", "//./UNC/"} {
		if len(s) >= len(pre) && strings.EqualFold(s[:len(pre)], pre) {
			s = "//" + s[len(pre):]
		}
	}
	if strings.HasPrefix(s, "//?/") || strings.HasPrefix(s, "//./") {
		s = s[4:]
	}
	parts := strings.Split(s, "/")
	for i, c := range parts {
		if c == "" || c == "." || c == ".." {
			continue
		}
		if !(i == 0 && len(c) == 2 && c[1] == ':') { // not the drive
			if j := strings.IndexByte(c, ':'); j >= 0 {
				c = c[:j]
			}
		}
		if t := strings.TrimRight(c, ". "); t != "" {
			c = t
		}
		parts[i] = c
	}
	return strings.Join(parts, "/")
}

// folds reports whether names compare without regard to case where p lies.
func (r Resolver) folds(p string) bool {
	switch r.Case {
	case CaseSensitive:
		return false
	case CaseInsensitive:
		return true
	}
	if fold, known := probeFold(p); known {
		return fold
	}
	return foldsByDefault()
}

// foldsByDefault is the platform's usual file system: APFS and NTFS ignore case as
// installed, Linux file systems do not.
func foldsByDefault() bool {
	switch runtime.GOOS {
	case "darwin", "ios", "windows":
		return true
	}
	return false
}

// probeFold asks the file systems p lies on: each existing part of p whose name has a
// letter is looked up again with its case swapped, in the same directory; the same file
// answering means that directory ignores case (a case-sensitive APFS volume, a FAT stick
// on Linux, a case-folding ext4 folder answer for themselves). One directory on the way
// that ignores case is enough to fold: the folder a rule protects may be that one.
// known is false when nothing on the way has such a name.
func probeFold(p string) (fold, known bool) {
	for cur := filepath.Clean(p); ; cur = filepath.Dir(cur) {
		name := filepath.Base(cur)
		if swapped := swapCase(name); swapped != name {
			if fi, err := os.Lstat(cur); err == nil {
				known = true
				if alt, err := os.Lstat(filepath.Join(filepath.Dir(cur), swapped)); err == nil && os.SameFile(fi, alt) {
					return true, true
				}
			}
		}
		if filepath.Dir(cur) == cur {
			return false, known
		}
	}
}

func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		if u := unicode.ToUpper(r); u != r {
			return u
		}
		return unicode.ToLower(r)
	}, s)
}
