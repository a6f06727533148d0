package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
)

// setUpElicitingTool configures a provider whose model calls server-everything's
// trigger-elicitation-request, a tool that asks the user to fill in a form.
func setUpElicitingTool(t *testing.T, dir string) {
	t.Helper()
	mcptest.NeedNPM(t)
	srv := llmtest.Start(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if r.Body.LastMessage().Role == "tool" {
			return llmtest.Reply{Text: "The tool said: " + r.Body.LastMessage().Content}
		}
		for _, n := range r.Body.ToolNames() {
			if strings.Contains(n, "__triggerElicitationRequest_") {
				return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: n, Arguments: `{}`}}}
			}
		}
		return llmtest.Reply{Text: "the eliciting tool was not offered: " + strings.Join(r.Body.ToolNames(), " ")}
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
	if r := run(t, dir, "", "mcp", "tools", "everything", "--refresh"); r.code != 0 || !strings.Contains(r.stdout, "trigger-elicitation-request") {
		t.Fatalf("mcp tools (elicitation advertised?): %+v", r)
	}
}

// TestChatAnswersFormsOnTheTerminal: `cairn chat` asks a server's form on the terminal
// (after the call's approval, on the same input): the user fills it in field by field
// (an answer that does not fit is asked again, empty lines keep the defaults), declines
// it, or is not there (--approve allow declines); the model reads what the server made
// of the answer.
func TestChatAnswersFormsOnTheTerminal(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	setUpElicitingTool(t, dir)
	// The form's fields in the order the terminal asks them: the required name first,
	// then the others by name.
	fill := strings.Join([]string{
		"y",            // allow the call once
		"f",            // fill in the form
		"",             // name (required): asked again
		"Grace Hopper", // name
		"",             // birthdate
		"y",            // check
		"",             // email
		"",             // firstLine (default)
		"",             // homepage
		"1000",         // integer: out of range (1-100), asked again
		"7",            // integer
		"",             // legacyTitledEnum (default)
		"",             // number (default)
		"",             // titledMultipleSelectEnum (default)
		"2",            // titledSingleSelectEnum: Green Lantern
		"2, Violin",    // untitledMultipleSelectEnum
		"",             // untitledSingleSelectEnum (default)
	}, "\n") + "\n"
	tests := []struct {
		name, stdin string
		args        []string
		out, errOut []string
	}{
		{name: "filled in", stdin: fill, args: []string{"--approve", "ask"},
			out: []string{"User provided the requested information", "Name: Grace Hopper", "Agreed to terms: true", "Favorite Integer: 7",
				`"titledSingleSelectEnum": "hero-2"`, `"Piano"`, `"Violin"`, `"firstLine": "It was a dark and stormy night."`},
			errOut: []string{"everything asks for input:", "Please provide inputs", "String (required)", "This is required.", "The number is out of range.", "1) Superman"}},
		{name: "declined", stdin: "y\nd\n", args: []string{"--approve", "ask"}, out: []string{"User declined"}},
		{name: "nobody at the terminal", args: []string{"--approve", "allow"}, out: []string{"User declined"},
			errOut: []string{"Declined the form of everything"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, dir, tc.stdin, append(append([]string{"chat", "--provider", "fake"}, tc.args...), "please elicit")...)
			if r.code != 0 {
				t.Fatalf("chat: %+v", r)
			}
			for _, w := range tc.out {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
			for _, w := range tc.errOut {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

// TestMCPCallAnswersFormsOnTheTerminal: `cairn mcp call` of a tool that asks for a form
// asks it on the terminal, so the call does not wait for a window.
func TestMCPCallAnswersFormsOnTheTerminal(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	setUpElicitingTool(t, dir)
	tests := []struct{ stdin, want string }{
		{"d\n", "User declined"},
		{"c\n", "User cancelled"},
		{"f\nAda\n\n\n\n\n\n\n\n\n\n\n\n\n", "Name: Ada"},
	}
	for _, tc := range tests {
		r := run(t, dir, tc.stdin, "mcp", "call", "everything", "trigger-elicitation-request")
		if r.code != 0 || !strings.Contains(r.stdout, tc.want) || !strings.Contains(r.stderr, "everything asks for input") {
			t.Errorf("answer %q: %+v", tc.stdin, r)
		}
	}
}
