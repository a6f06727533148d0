package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/mcp"
)

// resourceCases are the `cairn mcp resources|read|prompts|prompt` runs against
// server-everything, the same with and without a running owner.
var resourceCases = []struct {
	name string
	args []string
	want []string
}{
	{"resources", []string{"mcp", "resources", "everything"}, []string{"demo://resource/static/document/", "demo://resource/dynamic/text/{resourceId}", "(template)"}},
	{"read text", []string{"mcp", "read", "everything", "demo://resource/dynamic/text/5"}, []string{"Resource 5: This is a plaintext resource"}},
	{"read blob", []string{"mcp", "read", "everything", "demo://resource/dynamic/blob/6"}, []string{"[blob demo://resource/dynamic/blob/6 text/plain,", "--out FILE"}},
	{"prompts", []string{"mcp", "prompts", "everything"}, []string{"args-prompt", "city state?", "simple-prompt"}},
	{"prompt", []string{"mcp", "prompt", "everything", "args-prompt", "city=Lyon", "state=Rhône"}, []string{"user: What's weather in Lyon, Rhône?"}},
}

// TestMCPResourceCommands: without an owner the command connects the server itself.
func TestMCPResourceCommands(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("SHELL", "")
	dir := t.TempDir()
	setUpGatedTool(t, dir)
	for _, c := range resourceCases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, dir, "", c.args...)
			for _, w := range c.want {
				if r.code != 0 || !strings.Contains(r.stdout, w) {
					t.Fatalf("%v: want %q in %+v", c.args, w, r)
				}
			}
		})
	}
	out := filepath.Join(t.TempDir(), "blob.txt")
	if r := run(t, dir, "", "mcp", "read", "everything", "demo://resource/dynamic/blob/6", "--out", out); r.code != 0 {
		t.Fatalf("read --out: %+v", r)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.HasPrefix(string(b), "Resource 6: This is a base64 blob") {
		t.Fatalf("--out wrote %q (%v)", b, err)
	}
	r := run(t, dir, "", "mcp", "prompts", "everything", "--json")
	var ps []mcp.PromptInfo
	if err := json.Unmarshal([]byte(r.stdout), &ps); err != nil || len(ps) == 0 || ps[0].Arguments == nil {
		t.Fatalf("prompts --json: %v %+v", err, r)
	}
	if r := run(t, dir, "", "mcp", "prompt", "everything", "args-prompt", "nocity"); r.code != 2 {
		t.Fatalf("a bad argument: %+v", r)
	}
	if r := run(t, dir, "", "mcp", "read", "everything", "demo://nowhere/1"); r.code == 0 || !strings.Contains(r.stderr, "resources/read demo://nowhere/1 on MCP server everything: MCP error -32602: Resource demo://nowhere/1 not found\n") || strings.Count(r.stderr, "not found") != 1 {
		t.Fatalf("an unknown resource: %+v", r)
	}
}

// TestMCPResourceCommandsThroughServe: with serve running, the commands go through the
// facade the window uses, on the owner's connection.
func TestMCPResourceCommandsThroughServe(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	bin := buildCairn(t)
	dir := t.TempDir()
	setUpGatedTool(t, dir)
	startServeChild(t, bin, dir)
	for _, c := range resourceCases {
		t.Run(c.name, func(t *testing.T) {
			r := runBin(t, bin, dir, "", c.args...)
			for _, w := range c.want {
				if r.code != 0 || !strings.Contains(r.stdout, w) {
					t.Fatalf("%v: want %q in %+v", c.args, w, r)
				}
			}
		})
	}
}
