package ops

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// Bounds of a grep.
const (
	DefaultMaxMatches = 200
	MaxMatchesLimit   = 2000
	MaxContext        = 10
	MaxGrepFile       = 16 << 20 // larger files are skipped
	MaxGrepOutput     = 256 << 10
)

// GrepRequest searches the files under Path (or the file Path) for a regular expression
// (RE2 syntax), line by line.
type GrepRequest struct {
	Common
	Pattern    string `json:"pattern"`
	Path       string `json:"path,omitempty"`
	Glob       string `json:"glob,omitempty"` // only files whose path (or name, without a /) matches
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	Context    int    `json:"context,omitempty"`     // lines before and after each match
	FilesOnly  bool   `json:"files_only,omitempty"`  // only the names of files that match
	MaxMatches int    `json:"max_matches,omitempty"` // default DefaultMaxMatches
}

// GrepResult is `path:line:text` lines (context lines `path-line-text`, groups apart
// separated by `--`), or the matching files' names.
type GrepResult struct {
	Content   string `json:"content"`
	Matches   int    `json:"matches"`
	Files     int    `json:"files"`
	Truncated bool   `json:"truncated,omitempty"`
	// Skipped counts files left out: binary, too large, hard-linked.
	Skipped int `json:"skipped,omitempty"`
}

type grepper struct {
	re      *regexp.Regexp
	r       GrepRequest
	out     bytes.Buffer
	res     GrepResult
	limit   int
	stopped bool
}

func grep(w *workspace, r GrepRequest) (GrepResult, error) {
	expr := r.Pattern
	if r.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return GrepResult{}, fail(CodeBadPattern, "", "the pattern is not a valid regular expression: %v", err)
	}
	if r.Glob != "" && !doublestar.ValidatePattern(r.Glob) {
		return GrepResult{}, fail(CodeBadPattern, "", "%q is not a valid glob pattern", r.Glob)
	}
	g := &grepper{re: re, r: r, limit: r.MaxMatches}
	if g.limit <= 0 || g.limit > MaxMatchesLimit {
		g.limit = DefaultMaxMatches
	}
	g.r.Context = min(max(r.Context, 0), MaxContext)
	rel, err := w.rel(r.Path)
	if err != nil {
		return GrepResult{}, err
	}
	if fi, err := w.root.Stat(rel); err == nil && !fi.IsDir() {
		g.file(w, rel)
	} else {
		truncated, err := w.walk(rel, func(string) bool { return false }, func(f walked) bool {
			if g.wanted(f.rel, rel) {
				g.file(w, filepath.FromSlash(f.rel))
			}
			return !g.stopped
		})
		if err != nil {
			return GrepResult{}, err
		}
		g.res.Truncated = g.res.Truncated || truncated
	}
	g.res.Content = g.out.String()
	return g.res, nil
}

// wanted applies the glob: to the path below the start, or to the name alone.
func (g *grepper) wanted(rel, start string) bool {
	if g.r.Glob == "" {
		return true
	}
	subject := strings.TrimPrefix(rel, show(start)+"/")
	if !strings.Contains(g.r.Glob, "/") {
		subject = path.Base(rel)
	}
	ok, _ := doublestar.Match(g.r.Glob, subject)
	return ok
}

// file greps one file, skipping what is not plain text of a sensible size.
func (g *grepper) file(w *workspace, rel string) {
	f, fi, err := w.openRead(rel)
	if err != nil {
		g.res.Skipped++
		return
	}
	defer f.Close()
	if fi.Size() > MaxGrepFile {
		g.res.Skipped++
		return
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(8192); bytes.IndexByte(head, 0) >= 0 {
		g.res.Skipped++
		return
	}
	g.scan(show(rel), br)
}

// scan writes the matches of one file with their context lines.
func (g *grepper) scan(name string, src io.Reader) {
	br := bufio.NewReaderSize(src, 64<<10)
	var before []string
	after, n, last, found := 0, 0, 0, false
	for !g.stopped {
		line, _, end := readLine(br, MaxLineChars*utf8.UTFMax)
		if end && line == nil {
			break
		}
		n++
		text, _ := cutLine(line, false)
		if g.re.Match(line) {
			if !found {
				found = true
				g.res.Files++
				if g.r.FilesOnly {
					g.emit(name + "\n")
					return
				}
			}
			g.res.Matches++
			if last > 0 && n-len(before) > last+1 {
				g.emit("--\n")
			}
			for i, b := range before {
				g.emit(fmt.Sprintf("%s-%d-%s\n", name, n-len(before)+i, b))
			}
			before = before[:0]
			g.emit(fmt.Sprintf("%s:%d:%s\n", name, n, text))
			last, after = n, g.r.Context
			if g.res.Matches >= g.limit {
				g.res.Truncated, g.stopped = true, true
			}
		} else if after > 0 {
			g.emit(fmt.Sprintf("%s-%d-%s\n", name, n, text))
			last, after = n, after-1
		} else if g.r.Context > 0 {
			if before = append(before, text); len(before) > g.r.Context {
				before = before[1:]
			}
		}
		if end {
			break
		}
	}
}

func (g *grepper) emit(s string) {
	if g.out.Len()+len(s) > MaxGrepOutput {
		g.res.Truncated, g.stopped = true, true
		return
	}
	g.out.WriteString(s)
}
