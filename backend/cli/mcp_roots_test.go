package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/mcp/mcptest"
)

// TestMCPRootFlag: `--root` offers a folder as an MCP root (server-everything's
// get-roots-list reports it); an edit replaces the roots, and --roots-mode none offers none.
func TestMCPRootFlag(t *testing.T) {
	mcptest.NeedNPM(t)
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("SHELL", "")
	dir := t.TempDir()
	a, b := t.TempDir(), t.TempDir()
	if r := run(t, dir, "", "mcp", "add", "ev", "--root", a, "--", mcptest.Node(t), mcptest.Everything(), "stdio"); r.code != 0 {
		t.Fatalf("mcp add --root: %+v", r)
	}
	cases := []struct {
		edit      []string
		want, not []string
	}{
		{nil, []string{"URI: file://" + filepath.ToSlash(a)}, []string{b}},
		{[]string{"--root", b}, []string{"URI: file://" + filepath.ToSlash(b)}, []string{a}},
		// No roots: Cairn advertises no roots capability, so the server offers no such tool.
		{[]string{"--root", "", "--roots-mode", "none"}, []string(nil), []string{a, b, "Current MCP Roots"}},
	}
	for _, c := range cases {
		if c.edit != nil {
			if r := run(t, dir, "", append([]string{"mcp", "edit", "ev"}, c.edit...)...); r.code != 0 {
				t.Fatalf("mcp edit %v: %+v", c.edit, r)
			}
		}
		r := run(t, dir, "", "mcp", "call", "ev", "get-roots-list")
		if (r.code == 0) != (c.want != nil) {
			t.Fatalf("get-roots-list: %+v", r)
		}
		if c.want == nil && !strings.Contains(r.stdout+r.stderr, "get-roots-list not found") {
			t.Errorf("without roots: %+v", r)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v: want %q in %+v", c.edit, w, r)
			}
		}
		for _, n := range c.not {
			if strings.Contains(r.stdout, n) {
				t.Errorf("%v: %q should not be in %+v", c.edit, n, r)
			}
		}
	}
}
