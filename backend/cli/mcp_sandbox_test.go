package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMCPSandboxAndRootsFlags: `mcp add`/`edit` store a server's sandbox (folders made
// absolute, lists replaced when given, --sandbox=false keeps them) and its roots mode;
// a bad mode or domain is refused with the reason.
func TestMCPSandboxAndRootsFlags(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("SHELL", "")
	dir := t.TempDir()
	w, r2 := t.TempDir(), t.TempDir()
	r := run(t, dir, "", "mcp", "add", "files", "--sandbox", "--sandbox-write", w, "--sandbox-read", r2,
		"--sandbox-allow-domain", "API.Example.com", "--roots-mode", "none", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", w)
	if r.code != 0 || !strings.Contains(r.stdout, "roots: none") || !strings.Contains(r.stdout, "sandbox: on; writes "+w) ||
		!strings.Contains(r.stdout, "network api.example.com") {
		t.Fatalf("add: %+v", r)
	}
	type row struct {
		RootsMode, RootsModeInEffect string
		Sandbox                      *struct {
			Enabled              bool
			Write, Read, Domains []string
		}
	}
	list := func() row {
		t.Helper()
		var rows []row
		r := run(t, dir, "", "mcp", "list", "--json")
		if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("list: %v %q", err, r.stdout)
		}
		return rows[0]
	}
	got := list()
	if got.RootsMode != "none" || got.Sandbox == nil || !got.Sandbox.Enabled || strings.Join(got.Sandbox.Write, ",") != w ||
		strings.Join(got.Sandbox.Read, ",") != r2 || strings.Join(got.Sandbox.Domains, ",") != "api.example.com" {
		t.Fatalf("stored: %+v %+v", got, got.Sandbox)
	}
	if r = run(t, dir, "", "mcp", "edit", "files", "--sandbox=false", "--sandbox-allow-domain", "", "--roots-mode", "auto"); r.code != 0 ||
		!strings.Contains(r.stdout, "roots: none (auto)") || strings.Contains(r.stdout, "sandbox: on") {
		t.Fatalf("edit: %+v", r)
	}
	got = list()
	if got.RootsMode != "" || got.RootsModeInEffect != "none" || got.Sandbox == nil || got.Sandbox.Enabled ||
		strings.Join(got.Sandbox.Write, ",") != w || len(got.Sandbox.Domains) != 0 {
		t.Fatalf("edited: %+v %+v", got, got.Sandbox)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "edit", "files", "--roots-mode", "everything"}, "unknown roots mode"},
		{[]string{"mcp", "edit", "files", "--sandbox-allow-domain", "https://x.example.com/"}, "not a domain name"},
		{[]string{"mcp", "add", "remote", "--sandbox", "--url", "https://mcp.example.com/mcp"}, "only a stdio server"},
	} {
		if r := run(t, dir, "", bad.args...); r.code == 0 || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("%v: %+v, want an error saying %q", bad.args, r, bad.want)
		}
	}
}
