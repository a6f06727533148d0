package ops

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestWriteCreatesAndOverwrites(t *testing.T) {
	e := newEnv(t)
	var r WriteResult
	if err := call(t, OpWrite, WriteRequest{Common: e.common(), Path: "new/deep/a.go", Content: "package a\n"}, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Created || r.Bytes != 10 || e.get("new/deep/a.go") != "package a\n" {
		t.Fatalf("create: %+v %q", r, e.get("new/deep/a.go"))
	}
	p := e.put("run.sh", "old\n")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := call(t, OpWrite, WriteRequest{Common: e.common(), Path: "run.sh", Content: "new"}, &r); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if r.Created || e.get("run.sh") != "new" || fi.Mode().Perm() != 0o755 {
		t.Fatalf("overwrite: %+v %q %v", r, e.get("run.sh"), fi.Mode())
	}
}

// TestWriteSpecialNames writes names that would break a shell or a flag parser.
func TestWriteSpecialNames(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"-rf", "--help", "it's \"quoted\".txt", "new\nline.txt", "$(touch pwned)", "semi;colon", "空 白.md", " lead"} {
		if err := call(t, OpWrite, WriteRequest{Common: e.common(), Path: name, Content: name}, nil); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if got := e.get(name); got != name {
			t.Fatalf("%q holds %q", name, got)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "pwned")); err == nil {
		t.Fatal("a name ran as a command")
	}
}

// TestWriteStaysInside: every way a write could change something outside the workspace or
// a protected path inside is refused, and the target is untouched.
func TestWriteStaysInside(t *testing.T) {
	e := newEnv(t)
	e.put(".git/hooks/pre-commit", "#!/bin/sh\n")
	e.put(".git/config", "[core]\n")
	e.put(".bashrc", "# rc\n")
	e.put("real/x.txt", "x\n")
	e.link("../outside/secret.txt", "rel-link")
	e.link("../outside", "dir-link")
	e.link("real", "inner-dir-link")
	e.link(".git/hooks", "hooks-link")
	e.link("real/x.txt", "inner-file-link")
	if err := os.Link(e.secret, filepath.Join(e.ws, "hard")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, code string }{
		{"../outside/secret.txt", CodeOutside},
		{e.secret, CodeOutside},
		{filepath.Join(e.outside, "new.txt"), CodeOutside},
		{"rel-link", CodeSymlinked},
		{"dir-link/secret.txt", CodeSymlinked},
		{"dir-link/new.txt", CodeSymlinked},
		{"inner-dir-link/x.txt", CodeSymlinked},
		{"inner-file-link", CodeSymlinked},
		{"hooks-link/pre-commit", CodeSymlinked},
		{"hard", CodeHardlinked},
		{".git/hooks/pre-commit", CodeProtected},
		{".git/hooks/post-checkout", CodeProtected},
		{".git/config", CodeProtected},
		{".bashrc", CodeProtected},
		{".vscode/tasks.json", CodeProtected},
		{".", CodeIsDir},
		{"real", CodeIsDir},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			wantCode(t, call(t, OpWrite, WriteRequest{Common: e.common(), Path: tt.path, Content: "PWNED"}, nil), tt.code)
			wantCode(t, call(t, OpEdit, EditRequest{Common: e.common(), Path: tt.path, OldString: "x", NewString: "PWNED"}, nil), tt.code)
		})
	}
	if e.get(e.secret) != "TOP SECRET\n" || e.get(".git/hooks/pre-commit") != "#!/bin/sh\n" || e.get("real/x.txt") != "x\n" {
		t.Fatal("a refused write changed a file")
	}
	if _, err := os.Stat(filepath.Join(e.outside, "new.txt")); err == nil {
		t.Fatal("a file was created outside")
	}
	if err := call(t, OpWrite, WriteRequest{Common: e.common(), Path: "real/x.txt", Content: "ok"}, nil); err != nil {
		t.Fatalf("the same write inside: %v", err)
	}
}

// TestWriteSymlinkSwap swaps a folder of the workspace for a symlink to the outside while
// writes into it run: no write lands outside, whichever moment the swap happens.
func TestWriteSymlinkSwap(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.ws, "swap")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			_ = os.Rename(dir, dir+".real")
			_ = os.Symlink(e.outside, dir)
			_ = os.Remove(dir)
			_ = os.Rename(dir+".real", dir)
		}
	}()
	for range 300 {
		_ = call(t, OpWrite, WriteRequest{Common: e.common(), Path: "swap/secret.txt", Content: "PWNED"}, nil)
		_ = call(t, OpEdit, EditRequest{Common: e.common(), Path: "swap/secret.txt", OldString: "TOP", NewString: "PWNED"}, nil)
	}
	stop.Store(true)
	wg.Wait()
	if got := e.get(e.secret); got != "TOP SECRET\n" {
		t.Fatalf("the secret outside became %q", got)
	}
}

func TestWriteCapsSize(t *testing.T) {
	e := newEnv(t)
	wantCode(t, call(t, OpWrite, WriteRequest{Common: e.common(), Path: "big", Content: strings.Repeat("z", MaxWrite+1)}, nil), CodeTooLarge)
}
