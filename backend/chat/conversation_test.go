package chat

import (
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm"
)

// TestLatestUserText: the scope's conversation text is the user's latest messages,
// newest first, without the assistant's or tools' text, capped at valid UTF-8.
func TestLatestUserText(t *testing.T) {
	h := []llm.Message{
		{Role: llm.RoleUser, Content: "first question"},
		{Role: llm.RoleAssistant, Content: "an answer"},
		{Role: llm.RoleTool, Content: "tool output"},
		{Role: llm.RoleUser, Content: "番茄 aphids"},
	}
	tests := []struct {
		max  int
		want string
	}{
		{100, "番茄 aphids\nfirst question"},
		{4, "番"}, // a cut never splits a character
		{5, "番"}, // 3 bytes + an incomplete second
		{13, "番茄 aphids"},
	}
	for _, tt := range tests {
		if got := latestUserText(h, tt.max); got != tt.want {
			t.Fatalf("max %d: %q, want %q", tt.max, got, tt.want)
		}
	}
	if got := latestUserText(nil, 10); got != "" {
		t.Fatalf("empty history: %q", got)
	}
	if strings.Contains(latestUserText(h, 1000), "answer") {
		t.Fatal("assistant text counted")
	}
}
