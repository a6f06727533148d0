package ops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func grepEnv(t *testing.T) *env {
	e := newEnv(t)
	e.put("main.go", "package main\n\nfunc main() {\n\tprintln(\"Hello\")\n}\n")
	e.put("lib/util.go", "package lib\n// hello helper\nfunc Hello() {}\n")
	e.put("lib/util_test.go", "package lib\n")
	e.put("docs/readme.md", "say hello\n")
	e.put(".git/objects/x", "hello from git\n")
	e.put("node_modules/dep/index.js", "hello dep\n")
	e.put("bin.dat", "hello\x00binary")
	e.link("../outside", "out")
	e.link("../outside/secret.txt", "secret-link")
	return e
}

func TestGrep(t *testing.T) {
	e := grepEnv(t)
	e.put(e.outside+"/hello.txt", "hello outside\n")
	tests := []struct {
		name    string
		req     GrepRequest
		want    []string
		wantNot []string
		matches int
	}{
		{"case matters", GrepRequest{Pattern: "Hello"}, []string{"main.go:4:\tprintln(\"Hello\")", "lib/util.go:3:func Hello() {}"}, []string{"readme", "git", "dep", "outside", "bin.dat"}, 2},
		{"ignore case", GrepRequest{Pattern: "hello", IgnoreCase: true}, []string{"docs/readme.md:1:say hello", "lib/util.go:2:// hello helper"}, []string{".git", "node_modules", "outside"}, 4},
		{"glob on names", GrepRequest{Pattern: "(?i)hello", Glob: "*.md"}, []string{"docs/readme.md:1"}, []string{"main.go"}, 1},
		{"glob on paths", GrepRequest{Pattern: "(?i)hello", Glob: "lib/**/*.go"}, []string{"lib/util.go"}, []string{"main.go", "readme"}, 2},
		{"one folder", GrepRequest{Pattern: "package", Path: "lib"}, []string{"lib/util.go:1:", "lib/util_test.go:1:"}, []string{"main.go"}, 2},
		{"one file", GrepRequest{Pattern: "func", Path: "main.go"}, []string{"main.go:3:func main() {"}, nil, 1},
		{"context", GrepRequest{Pattern: "println", Context: 1}, []string{"main.go-3-func main() {", "main.go:4:", "main.go-5-}"}, nil, 1},
		{"files only", GrepRequest{Pattern: "package", FilesOnly: true}, []string{"main.go\n", "lib/util.go\n"}, []string{":1:"}, 3},
		{"capped", GrepRequest{Pattern: "package", MaxMatches: 1}, []string{"package"}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Common = e.common()
			var r GrepResult
			if err := call(t, OpGrep, tt.req, &r); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Content, w) {
					t.Errorf("missing %q in\n%s", w, r.Content)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(r.Content, w) {
					t.Errorf("unexpected %q in\n%s", w, r.Content)
				}
			}
			if tt.req.FilesOnly {
				if r.Files != tt.matches {
					t.Errorf("files %d, want %d", r.Files, tt.matches)
				}
			} else if r.Matches != tt.matches {
				t.Errorf("matches %d, want %d", r.Matches, tt.matches)
			}
		})
	}
	wantCode(t, call(t, OpGrep, GrepRequest{Common: e.common(), Pattern: "("}, nil), CodeBadPattern)
	wantCode(t, call(t, OpGrep, GrepRequest{Common: e.common(), Pattern: "x", Path: "../outside"}, nil), CodeOutside)
	wantCode(t, call(t, OpGrep, GrepRequest{Common: e.common(), Pattern: "SECRET", Path: "secret-link"}, nil), CodeOutside)
}

func TestGrepCapsOutputAndSkipsHugeFiles(t *testing.T) {
	e := newEnv(t)
	e.put("wide.txt", strings.Repeat(strings.Repeat("w", 3000)+"\n", 400))
	e.put("huge.txt", strings.Repeat("w\n", MaxGrepFile/2+10))
	var r GrepResult
	if err := call(t, OpGrep, GrepRequest{Common: e.common(), Pattern: "w", MaxMatches: MaxMatchesLimit}, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || len(r.Content) > MaxGrepOutput || r.Skipped != 1 {
		t.Fatalf("truncated %v, %d bytes, skipped %d", r.Truncated, len(r.Content), r.Skipped)
	}
}

func TestList(t *testing.T) {
	e := grepEnv(t)
	var r ListResult
	if err := call(t, OpList, ListRequest{Common: e.common()}, &r); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, en := range r.Entries {
		names = append(names, en.Name+":"+en.Type+":"+en.Target)
	}
	got := strings.Join(names, " ")
	want := ".git:dir: docs:dir: lib:dir: node_modules:dir: bin.dat:file: main.go:file: out:symlink:../outside secret-link:symlink:../outside/secret.txt"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if err := call(t, OpList, ListRequest{Common: e.common(), Path: "lib"}, &r); err != nil || r.Total != 2 {
		t.Fatalf("lib: %v %+v", err, r)
	}
	wantCode(t, call(t, OpList, ListRequest{Common: e.common(), Path: "out"}, nil), CodeOutside)
	wantCode(t, call(t, OpList, ListRequest{Common: e.common(), Path: ".."}, nil), CodeOutside)
	wantCode(t, call(t, OpList, ListRequest{Common: e.common(), Path: "main.go"}, nil), CodeNotDir)
}

func TestFind(t *testing.T) {
	e := grepEnv(t)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(e.ws, "lib/util.go"), old, old); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		req  FindRequest
		want string
	}{
		{FindRequest{Pattern: "**/*.go"}, "lib/util_test.go main.go lib/util.go"},
		{FindRequest{Pattern: "*.go"}, "main.go"},
		{FindRequest{Pattern: "*.go", Path: "lib"}, "lib/util_test.go lib/util.go"},
		{FindRequest{Pattern: "**/*.js"}, ""},
		{FindRequest{Pattern: "node_modules/**/*.js"}, "node_modules/dep/index.js"},
		{FindRequest{Pattern: "**/secret.txt"}, ""},
		{FindRequest{Pattern: "**/*.{md,dat}"}, "bin.dat docs/readme.md"},
	}
	for _, tt := range tests {
		t.Run(tt.req.Pattern+" in "+tt.req.Path, func(t *testing.T) {
			tt.req.Common = e.common()
			var r FindResult
			if err := call(t, OpFind, tt.req, &r); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(r.Files, " "); got != tt.want && !sameSet(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
	var r FindResult
	if err := call(t, OpFind, FindRequest{Common: e.common(), Pattern: "**", Limit: 2}, &r); err != nil || len(r.Files) != 2 || !r.Truncated {
		t.Fatalf("limit: %v %+v", err, r)
	}
	wantCode(t, call(t, OpFind, FindRequest{Common: e.common(), Pattern: "[", Path: ""}, nil), CodeBadPattern)
	wantCode(t, call(t, OpFind, FindRequest{Common: e.common(), Pattern: "*", Path: "out"}, nil), CodeOutside)
}

// sameSet compares files written within the same instant, whose order is the walk's.
func sameSet(a, b string) bool {
	as, bs := strings.Fields(a), strings.Fields(b)
	if len(as) != len(bs) {
		return false
	}
	seen := map[string]int{}
	for _, x := range as {
		seen[x]++
	}
	for _, x := range bs {
		if seen[x]--; seen[x] < 0 {
			return false
		}
	}
	return as[len(as)-1] == bs[len(bs)-1]
}
