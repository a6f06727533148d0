package mcp

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestPathContextSaysWhereRelativePathsStart: a stdio server's working directory is the
// configured one made absolute (else Cairn's), its roots are absolute paths, and a
// remote server has only its roots.
func TestPathContextSaysWhereRelativePathsStart(t *testing.T) {
	h := newHarness(t, cold)
	cwd, _ := os.Getwd()
	root := t.TempDir()
	home := "HOME"
	if runtime.GOOS == "windows" {
		home = "USERPROFILE"
	}
	local := h.save(Server{Name: "local", Command: "node", Args: []string{"fs.js", root}, Cwd: "sub", Roots: []string{"file://" + filepath.ToSlash(root), "rel"},
		Env: []Var{{Name: home, Value: root}}})
	plain := h.save(Server{Name: "plain", Command: "node"})
	remote := h.save(Server{Name: "remote", URL: "https://mcp.example.com/mcp", Roots: []string{root}})

	pc, ok := h.m.PathContext(local.ID)
	if !ok || pc.Remote || pc.Dir != filepath.Join(cwd, "sub") || !slices.Equal(pc.Args, []string{"fs.js", root}) ||
		!slices.Equal(pc.Roots, []string{root, filepath.Join(cwd, "rel")}) || pc.Home != root {
		t.Fatalf("local: %+v, %v", pc, ok)
	}
	if pc, ok := h.m.PathContext(plain.ID); !ok || pc.Dir != cwd || pc.Home != "" {
		t.Fatalf("plain: %+v, %v", pc, ok)
	}
	if pc, ok := h.m.PathContext(remote.ID); !ok || !pc.Remote || pc.Dir != "" || len(pc.Args) != 0 || !slices.Equal(pc.Roots, []string{root}) {
		t.Fatalf("remote: %+v, %v", pc, ok)
	}
	if _, ok := h.m.PathContext("nope"); ok {
		t.Fatal("an unknown server has a path context")
	}
}
