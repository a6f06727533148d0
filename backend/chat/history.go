package chat

import (
	"strings"

	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/tools"
)

// buildHistory turns stored messages into the model's conversation. An assistant message
// becomes one assistant turn per round (its text and tool calls) followed by one tool
// message per call; a call without a stored end (the process died, say) gets a short
// note, because providers refuse a tool call without an answer. Each round carries its
// reasoning; the client sends it back only where the provider's dialect needs it (and
// never a plain answer's). Rounds with neither text nor calls (an answer that failed at
// once) are skipped.
func buildHistory(msgs []Message) []llm.Message {
	var out []llm.Message
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			var b strings.Builder
			for _, p := range m.Parts {
				if p.Type == PartText {
					if b.Len() > 0 {
						b.WriteString("\n\n")
					}
					b.WriteString(p.Text)
				}
			}
			if b.Len() > 0 {
				out = append(out, llm.Message{Role: llm.RoleUser, Content: b.String()})
			}
		case RoleAssistant:
			out = append(out, assistantTurns(m)...)
		}
	}
	return out
}

func assistantTurns(m Message) []llm.Message {
	ends := map[string]Part{}
	maxRound := 0
	for _, p := range m.Parts {
		switch p.Type {
		case PartToolResult, PartToolError, PartToolStopped:
			if p.Tool != nil {
				ends[p.Tool.CallID] = p
			}
		}
		if p.Round > maxRound {
			maxRound = p.Round
		}
	}
	var out []llm.Message
	for round := 0; round <= maxRound; round++ {
		var text, reasoning strings.Builder
		var calls []llm.ToolCall
		for _, p := range m.Parts {
			if p.Round != round {
				continue
			}
			switch {
			case p.Type == PartText:
				text.WriteString(p.Text)
			case p.Type == PartReasoning:
				reasoning.WriteString(p.Text)
			case p.Type == PartToolCall && p.Tool != nil && p.Tool.CallID != "" && p.Tool.Name != "":
				calls = append(calls, llm.ToolCall{Index: len(calls), ID: p.Tool.CallID, Name: p.Tool.Name, Arguments: p.Tool.Arguments})
			}
		}
		if text.Len() == 0 && len(calls) == 0 {
			continue
		}
		out = append(out, llm.Message{Role: llm.RoleAssistant, Content: text.String(), ToolCalls: calls, Reasoning: reasoning.String()})
		for _, c := range calls {
			content := "The tool call was interrupted before it finished."
			var images []llm.Image
			if e, ok := ends[c.ID]; ok {
				content = modelContent(tools.Status(e.Type), e.Tool.Content, e.Tool.Error)
				images = toolImages(e.Tool.Images)
			}
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: content, Images: images})
		}
	}
	return out
}
