package chat

import (
	"context"
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
//
// A user message's attachments follow its text (userTurn); store may be nil, and then
// they are only named.
func buildHistory(ctx context.Context, msgs []Message, store Attachments) []llm.Message {
	var out []llm.Message
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			if turn, ok := userTurn(ctx, m, store); ok {
				out = append(out, turn)
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
