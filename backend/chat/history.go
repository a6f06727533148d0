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
// once) are skipped. A notice the model was told before a round's request (a background
// task's end) is a user message before that round's turn, where it was (withNotices).
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
			out = assistantTurns(out, m)
		}
	}
	return out
}

// assistantTurns adds m's rounds to the conversation out.
func assistantTurns(out []llm.Message, m Message) []llm.Message {
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
	for round := 0; round <= maxRound; round++ {
		var text, reasoning strings.Builder
		var calls []llm.ToolCall
		var notes []string
		for _, p := range m.Parts {
			if p.Round != round {
				continue
			}
			switch {
			case p.Type == PartStatus && p.Status != nil && p.Status.Notice != nil:
				// What the model was told before this round's request (deliverNotices).
				notes = append(notes, p.Status.Notice.Text)
			case p.Type == PartText:
				text.WriteString(p.Text)
			case p.Type == PartReasoning:
				reasoning.WriteString(p.Text)
			case p.Type == PartToolCall && p.Tool != nil && p.Tool.CallID != "" && p.Tool.Name != "":
				calls = append(calls, llm.ToolCall{Index: len(calls), ID: p.Tool.CallID, Name: p.Tool.Name, Arguments: p.Tool.Arguments})
			}
		}
		out = withNotices(out, notes)
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

// withNotices adds what the model was told before a round to the conversation, as user
// messages: before the question when the conversation ends with one (the first round of
// an answer), so the question stays the last thing the model reads; else after the last
// round's tool results.
func withNotices(msgs []llm.Message, texts []string) []llm.Message {
	if len(texts) == 0 {
		return msgs
	}
	notes := make([]llm.Message, 0, len(texts)+1)
	for _, t := range texts {
		notes = append(notes, llm.Message{Role: llm.RoleUser, Content: t})
	}
	n := len(msgs)
	if n == 0 || msgs[n-1].Role != llm.RoleUser {
		return append(msgs, notes...)
	}
	return append(append(msgs[:n-1:n-1], notes...), msgs[n-1])
}
