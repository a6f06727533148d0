package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
)

// setUpProgressTool configures a provider whose model calls server-everything's
// trigger-long-running-operation (4 steps, each reported as progress) once per chat.
func setUpProgressTool(t *testing.T, dir string) {
	t.Helper()
	mcptest.NeedNPM(t)
	srv := llmtest.Start(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if r.Body.LastMessage().Role == "tool" {
			return llmtest.Reply{Text: "The tool said: " + r.Body.LastMessage().Content}
		}
		for _, n := range r.Body.ToolNames() {
			if strings.Contains(n, "LongRunning") { // the wire name: triggerLongRunningOperati…
				return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: n, Arguments: `{"duration":1.2,"steps":4}`}}}
			}
		}
		return llmtest.Reply{Text: "no long-running tool was offered: " + strings.Join(r.Body.ToolNames(), " ")}
	})
	if r := run(t, dir, "", "provider", "add", "fake", "--base-url", srv.URL, "--model", "m"); r.code != 0 {
		t.Fatalf("provider add: %+v", r)
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": mcptest.Node(t), "args": []string{mcptest.Everything(), "stdio"}},
	}})
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, "", "mcp", "import", file); r.code != 0 {
		t.Fatalf("mcp import: %+v", r)
	}
	if r := run(t, dir, "", "mcp", "tools", "everything", "--refresh"); r.code != 0 || !strings.Contains(r.stdout, "long-running") {
		t.Fatalf("mcp tools: %+v", r)
	}
}

var progressLine = regexp.MustCompile(`(?mi)^\[progress\] \S*long.?running\S* ([1-4])/4$`)

// TestToolProgressThroughServe: with `cairn serve` running, a terminal chat whose tool
// reports progress prints that progress as it comes (over the owner's event stream), and
// the tab sees the same progress on the call's part; `cairn mcp call` through serve prints
// the progress of serve's call.
func TestToolProgressThroughServe(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	bin := buildCairn(t)
	dir := t.TempDir()
	setUpProgressTool(t, dir)
	serve := startServeChild(t, bin, dir)
	tb := serve.openTab(t)

	r := runBin(t, bin, dir, "", "chat", "--provider", "fake", "--approve", "allow", "run the long operation")
	if r.code != 0 || !strings.Contains(r.stdout, "Long running operation completed") {
		t.Fatalf("chat through serve: %+v", r)
	}
	steps := map[string]bool{}
	for _, m := range progressLine.FindAllStringSubmatch(r.stderr, -1) {
		steps[m[1]] = true
	}
	if len(steps) < 2 {
		t.Fatalf("the terminal printed progress for %d steps, want at least 2:\n%s", len(steps), r.stderr)
	}
	tb.wait(t, "the terminal chat's progress on the call's part", func(ev events.Event) bool {
		var p chat.Part
		return ev.Type == chat.EventPartUpdated && json.Unmarshal(ev.Data, &p) == nil && p.Type == chat.PartToolCall &&
			p.Tool != nil && p.Tool.Progress != nil && p.Tool.Progress.Total == 4 && p.Tool.Progress.Progress >= 1
	})

	r = runBin(t, bin, dir, "", "mcp", "call", "everything", "trigger-long-running-operation", `{"duration":0.9,"steps":3}`)
	if r.code != 0 || !strings.Contains(r.stdout, "Long running operation completed") {
		t.Fatalf("mcp call through serve: %+v", r)
	}
	// The last progress notice can reach the terminal after the call's answer (notices and
	// the reply travel apart; seen once under load), so the stream is shown by the steps
	// before it, in order.
	first, second := strings.Index(r.stderr, "progress 1/3"), strings.Index(r.stderr, "progress 2/3")
	if first < 0 || second < first {
		t.Fatalf("mcp call through serve did not print progress 1/3 then 2/3:\n%s", r.stderr)
	}
}
