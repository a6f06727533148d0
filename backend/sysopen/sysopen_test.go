package sysopen

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestTarget opens documents themselves and the folder of programs and scripts.
func TestTarget(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		path string
		want string
	}{
		{write("notes.md", 0o644), filepath.Join(dir, "notes.md")},
		{write("report.PDF", 0o644), filepath.Join(dir, "report.PDF")},
		{write("setup.exe", 0o644), dir},
		{write("run.sh", 0o644), dir},
		{write("app.desktop", 0o644), dir},
		{dir, dir},
	}
	if runtime.GOOS != "windows" {
		cases = append(cases, struct{ path, want string }{write("tool", 0o755), dir})
	}
	for _, c := range cases {
		got, err := Target(c.path)
		if err != nil || got != c.want {
			t.Errorf("Target(%s) = %q, %v; want %q", c.path, got, err, c.want)
		}
	}
	if _, err := Target(filepath.Join(dir, "missing.txt")); err == nil {
		t.Error("Target of a missing file: no error")
	}
}
