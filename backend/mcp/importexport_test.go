package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
)

const claudeConfig = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
      "env": {"GITHUB_TOKEN": "ghp_abcdefgh1234", "LOG_LEVEL": "debug", "PORT": 3000}
    },
    "remote": {"type": "streamable-http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer tok-987654321", "X-Org": "acme"}},
    "legacy": {"url": "https://old.example.com/sse", "type": "sse", "disabled": true},
    "windsurf": {"serverUrl": "https://ws.example.com/mcp"},
    "both": {"command": "node", "url": "https://x.example.com"},
    "neither": {"args": ["x"]},
    "badargs": {"command": "node", "args": "server.js"},
    "websocket": {"type": "ws", "url": "wss://ws.example.com"},
    "badurl": {"url": "ftp://files.example.com"},
    "notobject": "npx server",
    "badenv": {"command": "node", "env": {"A": {"nested": true}}},
    "FILESYSTEM": {"command": "npx"}
  }
}`

func TestImportReportsEveryEntry(t *testing.T) {
	h := newHarness(t, cold)
	ctx := context.Background()
	rep, err := h.m.Import(ctx, []byte(claudeConfig))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, status, reason string }{
		{"filesystem", ImportAdded, ""},
		{"remote", ImportAdded, ""},
		{"legacy", ImportAdded, ""},
		{"windsurf", ImportAdded, ""},
		{"both", ImportRejected, "both"},
		{"neither", ImportRejected, "neither"},
		{"badargs", ImportRejected, "args"},
		{"websocket", ImportRejected, "not supported"},
		{"badurl", ImportRejected, "not an http(s) URL"},
		{"notobject", ImportRejected, "not a JSON object"},
		{"badenv", ImportRejected, "text value"},
		{"FILESYSTEM", ImportRejected, "given twice"},
	}
	if len(rep.Entries) != len(want) || rep.Imported != 4 || rep.Rejected != 8 {
		t.Fatalf("report %+v", rep)
	}
	for i, w := range want {
		e := rep.Entries[i]
		if e.Name != w.name || e.Status != w.status || !strings.Contains(e.Reason, w.reason) {
			t.Errorf("entry %d: %+v, want %+v", i, e, w)
		}
		if e.Status == ImportRejected && (e.Error == nil || e.Error.Code != apperr.MCPServerInvalid) {
			t.Errorf("entry %d: error %+v", i, e.Error)
		}
	}
	fs, _ := h.m.View(ctx, rep.Entries[0].ID)
	if fs.Transport != TransportStdio || fs.Command != "npx" || len(fs.Args) != 3 || !fs.Enabled {
		t.Fatalf("filesystem %+v", fs.Server)
	}
	env := map[string]Var{}
	for _, v := range fs.Env {
		env[v.Name] = v
	}
	if !env["GITHUB_TOKEN"].Secret || !env["GITHUB_TOKEN"].Set || env["GITHUB_TOKEN"].Value != "" || env["LOG_LEVEL"].Value != "debug" || env["PORT"].Value != "3000" {
		t.Fatalf("env %+v", env)
	}
	remote, _ := h.m.View(ctx, rep.Entries[1].ID)
	if remote.Transport != TransportHTTP || !remote.Headers[0].Secret || remote.Headers[1].Value != "acme" {
		t.Fatalf("remote %+v", remote.Server)
	}
	legacy, _ := h.m.View(ctx, rep.Entries[2].ID)
	if legacy.Transport != TransportSSE || legacy.Enabled || legacy.Status.State != StateDisabled {
		t.Fatalf("legacy %+v", legacy)
	}

	// Re-importing the same thing changes nothing; a changed entry is updated in place.
	rep2, err := h.m.Import(ctx, []byte(`{"mcpServers": {"filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"], "env": {"GITHUB_TOKEN": "ghp_abcdefgh1234", "LOG_LEVEL": "debug", "PORT": "3000"}}, "remote": {"type": "http", "url": "https://mcp.example.com/v2"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Unchanged != 1 || rep2.Updated != 1 || rep2.Entries[1].ID != rep.Entries[1].ID {
		t.Fatalf("re-import %+v", rep2)
	}

	for _, bad := range []string{``, `[1,2]`, `{"mcpServers": [1]}`, `{"theme": "dark"}`, `{"mcpServers": {}} trailing`} {
		_, err := h.m.Import(ctx, []byte(bad))
		if !apperr.Is(err, apperr.MCPImportInvalid) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestExportImportRoundTrip: what Cairn exports, Cairn (and other clients) import back to
// the same configuration; secrets only when asked for.
func TestExportImportRoundTrip(t *testing.T) {
	a := newHarness(t, cold)
	ctx := context.Background()
	if _, err := a.m.Import(ctx, []byte(claudeConfig)); err != nil {
		t.Fatal(err)
	}
	withheld, err := a.m.Export(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(withheld.JSON, "ghp_abcdefgh1234") || len(withheld.WithheldSecrets) != 2 {
		t.Fatalf("export without secrets: %s %v", withheld.JSON, withheld.WithheldSecrets)
	}
	full, err := a.m.Export(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	var parsed map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(full.JSON), &parsed); err != nil || len(parsed["mcpServers"]) != 4 {
		t.Fatalf("export is not mcpServers JSON: %v\n%s", err, full.JSON)
	}
	b := newHarness(t, cold)
	rep, err := b.m.Import(ctx, []byte(full.JSON))
	if err != nil || rep.Imported != 4 || rep.Rejected != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	again, err := b.m.Export(ctx, true)
	if err != nil || again.JSON != full.JSON {
		t.Fatalf("round trip differs:\n%s\n---\n%s", full.JSON, again.JSON)
	}
	rep, _ = a.m.Import(ctx, []byte(full.JSON))
	if rep.Unchanged != 4 {
		t.Fatalf("importing its own export: %+v", rep)
	}
}

// TestImportWarnsOfAMissingCommand: an entry whose command is not on the PATH it would
// start with is imported with a warning that names the command and the PATH searched; a
// command that is there, or one found through the entry's own PATH, gets none.
func TestImportWarnsOfAMissingCommand(t *testing.T) {
	h := newHarness(t, cold)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "my-mcp"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`{"mcpServers": {
		"gone": {"command": "cairn-no-such-command-7f3a"},
		"there": {"command": "sh", "args": ["-c", "true"]},
		"ownpath": {"command": "my-mcp", "env": {"PATH": %q}}
	}}`, bin)
	rep, err := h.m.Import(context.Background(), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rep.Entries {
		switch e.Name {
		case "gone":
			if e.Status != ImportAdded || len(e.Warnings) != 1 || e.Warnings[0].Code != apperr.MCPCommandNotFound ||
				e.Warnings[0].Params["command"] != "cairn-no-such-command-7f3a" || e.Warnings[0].Params["path"] == "" {
				t.Errorf("gone: %+v %+v", e, e.Warnings)
			}
		default:
			if e.Status != ImportAdded || len(e.Warnings) != 0 {
				t.Errorf("%s: %+v %+v", e.Name, e, e.Warnings)
			}
		}
	}
}
