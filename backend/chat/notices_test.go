package chat

import (
	"context"
	"testing"

	"github.com/cairn-app/cairn/backend/llm"
)

// TestNoticesInTheHistory: what the model was told before a round comes back where it
// was: before the question in the first round (the question stays last), after the tool
// results in a later one, several in the order they were told.
func TestNoticesInTheHistory(t *testing.T) {
	notice := func(round int, text string) Part {
		return Part{Type: PartStatus, Round: round, Status: &StatusInfo{Kind: StatusNotice, Notice: &Notice{ID: text, Kind: "task-ended", Text: text}}}
	}
	msgs := []Message{
		{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "question"}}},
		{Role: RoleAssistant, Parts: []Part{
			notice(0, "n1"),
			{Type: PartToolCall, Round: 0, Tool: &ToolInfo{CallID: "c1", Name: "task_output", Arguments: "{}"}},
			{Type: PartToolResult, Round: 0, Tool: &ToolInfo{CallID: "c1", Name: "task_output", Content: "out"}},
			notice(1, "n2"),
			notice(1, "n3"),
			{Type: PartText, Round: 1, Text: "answer"},
		}},
	}
	got := buildHistory(context.Background(), msgs, nil)
	want := []struct{ role, content string }{
		{llm.RoleUser, "n1"}, {llm.RoleUser, "question"}, {llm.RoleAssistant, ""}, {llm.RoleTool, "out"},
		{llm.RoleUser, "n2"}, {llm.RoleUser, "n3"}, {llm.RoleAssistant, "answer"},
	}
	if len(got) != len(want) {
		t.Fatalf("history %+v", got)
	}
	for i, w := range want {
		if got[i].Role != w.role || got[i].Content != w.content {
			t.Fatalf("message %d = %s %q, want %s %q (%+v)", i, got[i].Role, got[i].Content, w.role, w.content, got)
		}
	}
}
