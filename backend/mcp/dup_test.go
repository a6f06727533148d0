package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/tools"
)

// rawServerJS is a stdio MCP server in a few lines of node, without an SDK: it answers
// initialize and tools/list with the tools given as JSON in argv[1], and every other
// request with "method not found". It lets a test send what no SDK would let a server
// send (a tool listed twice).
const rawServerJS = `const tools = JSON.parse(process.argv[1]);
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const answer = (o) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, ...o }) + "\n");
  if (m.method === "initialize")
    return answer({ result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "raw", version: "1" } } });
  if (m.method === "tools/list") return answer({ result: { tools } });
  answer({ error: { code: -32601, message: "method not found" } });
});`

func rawServer(t *testing.T, name string, toolList []map[string]any) Server {
	t.Helper()
	b, err := json.Marshal(toolList)
	if err != nil {
		t.Fatal(err)
	}
	return Server{Name: name, Transport: TransportStdio, Command: mcptest.Node(t), Args: []string{"-e", rawServerJS, string(b)}, Enabled: true}
}

// TestToolListedTwice: a server that lists one tool name twice gets one registry entry
// and one row in Settings, both from the first definition, and a line in its log.
func TestToolListedTwice(t *testing.T) {
	h := newHarness(t, cold)
	schema := map[string]any{"type": "object"}
	v := h.save(rawServer(t, "dup", []map[string]any{
		{"name": "twice", "description": "the first", "inputSchema": schema},
		{"name": "other", "description": "another tool", "inputSchema": schema},
		{"name": "twice", "description": "the second", "inputSchema": schema, "annotations": map[string]any{"readOnlyHint": true}},
	}))
	list, err := h.m.RefreshTools(ctxT(t, 30*time.Second), v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d rows, want 2: %+v", len(list), list)
	}
	for _, ti := range list {
		if ti.Name == "twice" && (ti.Description != "the first" || ti.ReadOnly) {
			t.Fatalf("not the first definition: %+v", ti)
		}
	}
	view, _ := h.m.View(context.Background(), v.ID)
	if len(view.Tools) != 2 {
		t.Fatalf("view rows %+v", view.Tools)
	}
	wire := tools.MCPName(v.ID, "dup", "twice")
	n := 0
	for _, info := range h.reg.List() {
		if info.Name == wire {
			n++
		}
	}
	e, ok := h.reg.Lookup(wire)
	if n != 1 || !ok || e.Description != "the first" || e.ReadOnly || e.Approval != ApprovalDefault {
		t.Fatalf("registry: %d entries, %+v", n, e)
	}
	lines, _ := h.m.Logs(v.ID, 0)
	logged := 0
	for _, l := range lines {
		if strings.Contains(l.Text, `lists the tool "twice" more than once`) {
			logged++
		}
	}
	if logged != 1 {
		t.Fatalf("%d log lines about the duplicate: %+v", logged, lines)
	}
}
