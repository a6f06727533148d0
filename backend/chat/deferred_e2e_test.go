package chat

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// TestDeferredToolsEndToEnd runs the real pipeline with 100 registered MCP-like tools
// behind the real go-openai client: the tools are folded, and the model finds one with
// tool_search, is refused by tool_invoke until it inspects it, then invokes it.
func TestDeferredToolsEndToEnd(t *testing.T) {
	reg := tools.NewRegistry()
	if err := reg.Register(toolstest.MCPLike("srv-github", "GitHub", 100)...); err != nil {
		t.Fatal(err)
	}
	pipe := tools.NewPipeline(reg, tools.Options{DataDir: t.TempDir()})
	h := newHarness(t, pipe)
	sess := h.session(SessionInput{Toolsets: []string{"mcp"}})

	var target string
	wireName := regexp.MustCompile(`mcp__[A-Za-z0-9_-]+`)
	step := 0
	h.srv.Handle(func(r llmtest.Request) llmtest.Reply {
		step++
		last := r.Body.LastMessage()
		switch step {
		case 1:
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "tool_search", Arguments: `{"query":"merge pull request"}`}}}
		case 2:
			// The model reads the search result and picks the tool it names.
			target = wireName.FindString(last.Content)
			if target == "" {
				return llmtest.Reply{Text: "search result had no tool: " + last.Content}
			}
			args, _ := json.Marshal(map[string]any{"name": target, "arguments": map[string]any{"owner": "o", "repo": "r", "number": 7}})
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c2", Name: "tool_invoke", Arguments: string(args)}}}
		case 3:
			args, _ := json.Marshal(map[string]any{"name": target})
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c3", Name: "tool_inspect", Arguments: string(args)}}}
		case 4:
			args, _ := json.Marshal(map[string]any{"name": target, "arguments": map[string]any{"owner": "o", "repo": "r", "number": 7}})
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c4", Name: "tool_invoke", Arguments: string(args)}}}
		default:
			return llmtest.Reply{Text: "Merged."}
		}
	})

	_, snap := h.send(sess.ID, "Merge PR 7 in o/r")
	reqs := h.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("requests = %d, want 5", len(reqs))
	}
	// The 100 tools are folded: the request carries the meta tools only, and the
	// instructions list the folded namespace.
	names := reqs[0].Body.ToolNames()
	for _, n := range []string{"tool_search", "tool_inspect", "tool_invoke"} {
		if !strings.Contains(strings.Join(names, ","), n) {
			t.Fatalf("first request tools %v lack %s", names, n)
		}
	}
	if len(names) > 5 {
		t.Fatalf("first request carries %d tools; the MCP tools were not folded", len(names))
	}
	if sys := reqs[0].Body.Messages[0]; sys.Role != "system" || !strings.Contains(sys.Content, "<DEFERRED_TOOLS>") {
		t.Fatalf("system prompt has no <DEFERRED_TOOLS>: %+v", sys)
	}
	if !strings.Contains(target, "merge") {
		t.Fatalf("search did not lead to a merge tool: %q", target)
	}
	// Step 2: invoke before inspect is refused with a readable error.
	refused := reqs[2].Body.LastMessage().Content
	if !strings.Contains(refused, "tool_inspect") {
		t.Fatalf("invoke before inspect was not refused helpfully: %q", refused)
	}
	// Step 4: after inspecting, the invoke ran the real tool with the arguments.
	result := reqs[4].Body.LastMessage().Content
	if !strings.Contains(result, `"number":7`) || !strings.Contains(result, "merge_") {
		t.Fatalf("invoke result = %q", result)
	}
	a := last(snap)
	if a.Status != MessageComplete || a.Parts[len(a.Parts)-1].Text != "Merged." {
		t.Fatalf("answer = %+v", a)
	}
	var errs, results int
	for _, p := range a.Parts {
		switch p.Type {
		case PartToolError:
			errs++
			if p.Tool.Error == nil || p.Tool.Error.Code != "tool_not_inspected" {
				t.Fatalf("tool error part = %+v", p.Tool)
			}
		case PartToolResult:
			results++
		}
	}
	if errs != 1 || results != 3 {
		t.Fatalf("tool-error parts %d (want 1), tool-result parts %d (want 3)", errs, results)
	}
}
