package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
)

// step is one tool call of a scripted fake model: the first offered tool whose name
// contains tool, with arguments made from the previous tool's result.
type step struct {
	tool string
	args func(prev string) string
}

// script calls the steps in order, then says what the last tool said.
func script(steps ...step) func(llmtest.Request) llmtest.Reply {
	return func(r llmtest.Request) llmtest.Reply {
		done, prev := 0, ""
		for _, m := range r.Body.Messages {
			if m.Role == "tool" {
				done, prev = done+1, m.Content
			}
		}
		if done >= len(steps) {
			return llmtest.Reply{Text: "The tool said: " + prev}
		}
		for _, n := range r.Body.ToolNames() {
			if strings.Contains(n, steps[done].tool) {
				return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_" + n, Name: n, Arguments: steps[done].args(prev)}}}
			}
		}
		return llmtest.Reply{Text: "no tool containing " + steps[done].tool + " was offered"}
	}
}

func fixedArgs(s string) func(string) string { return func(string) string { return s } }

// setUpEverything imports server-everything and a fake provider answering with h.
func setUpEverything(t *testing.T, dir string) *llmtest.Server {
	t.Helper()
	mcptest.NeedNPM(t)
	srv := llmtest.Start(t)
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
	if r := run(t, dir, "", "mcp", "tools", "everything", "--refresh"); r.code != 0 || !strings.Contains(r.stdout, "mcp__everything__resourceRead_") {
		t.Fatalf("mcp tools has no resource_read: %+v", r)
	}
	return srv
}

var linkURI = regexp.MustCompile(`: (demo://resource/dynamic/text/\d+)\]`)

// TestResourceLinkReadByTheModel: the model calls get-resource-links, then reads the
// first text link through resource_read and gets the resource's text.
func TestResourceLinkReadByTheModel(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	srv := setUpEverything(t, dir)
	srv.Handle(script(
		step{"getResourceLinks", fixedArgs(`{"count":3}`)},
		step{"resourceRead", func(prev string) string {
			m := linkURI.FindStringSubmatch(prev)
			if m == nil {
				return `{"uri":"no link in the result"}`
			}
			b, _ := json.Marshal(map[string]string{"uri": m[1]})
			return string(b)
		}},
	))
	r := run(t, dir, "", "chat", "--provider", "fake", "--approve", "allow", "read the first link")
	if r.code != 0 || !strings.Contains(r.stdout, "The tool said: Resource 2: This is a plaintext resource") {
		t.Fatalf("chat: %+v", r)
	}
}

// TestResourceReadGatedLikeTheServersTools: resource_read gets the verdict a tool of the
// server with the same approval choice gets: asked (here denied by --approve deny) by
// default, run unasked once allowed.
func TestResourceReadGatedLikeTheServersTools(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	srv := setUpEverything(t, dir)
	tools := []struct{ name, wire, args, ran string }{
		{"toggle-subscriber-updates", "toggleSubscriberUpdates", `{}`, "started simulated resource"},
		{"resource_read", "resourceRead", `{"uri":"demo://resource/dynamic/text/7"}`, "Resource 7: This is a plaintext resource"},
	}
	for _, choice := range []string{"default", "allow", "ask"} {
		for _, tl := range tools {
			t.Run(choice+"/"+tl.name, func(t *testing.T) {
				if r := run(t, dir, "", "mcp", "approval", "everything", tl.name, choice); r.code != 0 {
					t.Fatalf("mcp approval: %+v", r)
				}
				srv.Handle(script(step{tl.wire, fixedArgs(tl.args)}))
				r := run(t, dir, "", "chat", "--provider", "fake", "--approve", "deny", "go")
				out := strings.ToLower(r.stdout)
				ran := strings.Contains(out, strings.ToLower(tl.ran))
				if r.code != 0 || ran != (choice == "allow") || ran == strings.Contains(out, "den") {
					t.Fatalf("choice %s: ran %v; %+v", choice, ran, r)
				}
			})
		}
	}
}
