package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMCPAddEdit: `cairn mcp add` stores a stdio or a remote server with its timeouts,
// `edit` changes only what it is given, and a bad value is a usage error.
func TestMCPAddEdit(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	t.Setenv("SHELL", "")
	dir := t.TempDir()
	r := run(t, dir, "", "mcp", "add", "files", "--connect-timeout", "90s", "--env", "ROOT=/tmp,/var", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp")
	if r.code != 0 || !strings.Contains(r.stdout, "files: added") || !strings.Contains(r.stdout, "connect timeout 1m30s, call timeout none") {
		t.Fatalf("add: %+v", r)
	}
	r = run(t, dir, "", "mcp", "add", "remote", "--url", "https://mcp.example.com/mcp", "--header", "X-Org: acme", "--call-timeout", "10m", "--disabled")
	if r.code != 0 || !strings.Contains(r.stdout, "call timeout 10m0s") {
		t.Fatalf("add remote: %+v", r)
	}
	r = run(t, dir, "", "mcp", "edit", "files", "--call-timeout", "2m")
	if r.code != 0 || !strings.Contains(r.stdout, "files: saved") || !strings.Contains(r.stdout, "connect timeout 1m30s, call timeout 2m0s") {
		t.Fatalf("edit: %+v", r)
	}
	var list []struct {
		Name, Command, URL, Transport   string
		Args                            []string
		Enabled                         bool
		ConnectTimeoutMs, CallTimeoutMs int
		Env, Headers                    []struct{ Name, Value string }
	}
	r = run(t, dir, "", "mcp", "list", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 2 {
		t.Fatalf("list: %v %q", err, r.stdout)
	}
	f, rem := list[0], list[1]
	if f.Command != "npx" || strings.Join(f.Args, " ") != "-y @modelcontextprotocol/server-filesystem /tmp" || f.ConnectTimeoutMs != 90000 ||
		f.CallTimeoutMs != 120000 || len(f.Env) != 1 || f.Env[0].Value != "/tmp,/var" || !f.Enabled {
		t.Fatalf("files: %+v", f)
	}
	if rem.Transport != "http" || rem.URL != "https://mcp.example.com/mcp" || rem.CallTimeoutMs != 600000 || rem.Enabled ||
		len(rem.Headers) != 1 || rem.Headers[0].Value != "acme" {
		t.Fatalf("remote: %+v", rem)
	}
	r = run(t, dir, "", "mcp", "edit", "files", "--connect-timeout", "0", "--", "node", "server.js")
	if r.code != 0 || !strings.Contains(r.stdout, "connect timeout 30s (default)") {
		t.Fatalf("edit command: %+v", r)
	}
	for _, bad := range [][]string{
		{"mcp", "add", "x"}, // neither command nor URL
		{"mcp", "add", "x", "--url", "https://a", "--", "y"}, // both
		{"mcp", "add", "x", "--call-timeout", "soon", "--", "y"},
		{"mcp", "add", "x", "--call-timeout", "-5s", "--", "y"},
		{"mcp", "edit", "files"}, // nothing to change
		{"mcp", "add", "x", "--env", "NOVALUE", "--", "y"},
	} {
		if r := run(t, dir, "", bad...); r.code != 2 {
			t.Fatalf("%v: exit %d %q", bad, r.code, r.stderr)
		}
	}
}
