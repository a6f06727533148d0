package agents

import (
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

// TestTypeAllows: a type's tool list takes exact names, prefixes ending in * and * for
// everything; nothing else.
func TestTypeAllows(t *testing.T) {
	cases := []struct {
		tools []string
		name  string
		want  bool
	}{
		{[]string{"*"}, "mcp__srv__tool_abc", true},
		{[]string{"web_search"}, "web_search", true},
		{[]string{"web_search"}, "web_fetch", false},
		{[]string{"sandbox_*"}, "sandbox_bash", true},
		{[]string{"sandbox_*"}, "kb_search", false},
		{[]string{"sandbox_read", "kb_*"}, "kb_read_chunks", true},
		{nil, "web_search", false},
	}
	for _, c := range cases {
		if got := (Type{Tools: c.tools}).allows(c.name); got != c.want {
			t.Errorf("%v allows %s = %v, want %v", c.tools, c.name, got, c.want)
		}
	}
}

// TestCheckType: what a user's type may not be, each said as agent_type_invalid.
func TestCheckType(t *testing.T) {
	ok := Type{Name: "reviewer", Description: "Reviews.", Tools: []string{"sandbox_read", "sandbox_grep"}}
	cases := []struct {
		name   string
		change func(*Type)
		why    string
	}{
		{"fine", func(*Type) {}, ""},
		{"upper case", func(t *Type) { t.Name = "Reviewer" }, "lowercase word"},
		{"built-in", func(t *Type) { t.Name = TypeCoder }, "built-in"},
		{"no tools", func(t *Type) { t.Tools = nil }, "at least one tool"},
		{"star inside", func(t *Type) { t.Tools = []string{"sand*box"} }, "not a tool name"},
		{"long description", func(t *Type) { t.Description = strings.Repeat("x", 501) }, "longer than 500"},
	}
	for _, c := range cases {
		typ := ok
		c.change(&typ)
		err := checkType(cleanType(typ))
		switch {
		case c.why == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.why != "" && (err == nil || err.Code != apperr.AgentTypeInvalid || !strings.Contains(err.Message, c.why)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.why)
		}
	}
}

// TestSystemPromptMarksASubAgent: the fake model's "agent" scenario tells a sub-agent by
// the marker its system prompt starts with.
func TestSystemPromptMarksASubAgent(t *testing.T) {
	for _, typ := range BuiltIns() {
		if !strings.HasPrefix(typ.system(), llmtest.SubAgentMarker) {
			t.Errorf("%s's system prompt does not start with %q", typ.Name, llmtest.SubAgentMarker)
		}
	}
}
