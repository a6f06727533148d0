package transfer

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/tools"
)

// claudeConversation is one entry of Claude's data export (conversations.json): a flat
// list of messages, each with its content blocks.
type claudeConversation struct {
	UUID      string          `json:"uuid"`
	Name      string          `json:"name"`
	CreatedAt string          `json:"created_at"`
	UpdatedAt string          `json:"updated_at"`
	Messages  []claudeMessage `json:"chat_messages"`
}

type claudeMessage struct {
	Sender    string        `json:"sender"` // human | assistant
	Text      string        `json:"text"`
	CreatedAt string        `json:"created_at"`
	Content   []claudeBlock `json:"content"`
}

type claudeBlock struct {
	Type     string          `json:"type"` // text | thinking | tool_use | tool_result
	Text     string          `json:"text"`
	Thinking string          `json:"thinking"`
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Input    json.RawMessage `json:"input"`
	Content  json.RawMessage `json:"content"`
}

// isClaude tells Claude's export from ChatGPT's: its entries have chat_messages.
func isClaude(raw []json.RawMessage) bool {
	for _, r := range raw {
		var probe map[string]json.RawMessage
		if json.Unmarshal(r, &probe) == nil {
			_, ok := probe["chat_messages"]
			return ok
		}
	}
	return false
}

// parseClaude reads Claude's conversations.json: human turns become user messages, an
// assistant turn one answer with its thinking, tool uses and their results as parts.
func parseClaude(raw []json.RawMessage) []candidate {
	out := make([]candidate, 0, len(raw))
	for i, r := range raw {
		var c claudeConversation
		if err := json.Unmarshal(r, &c); err != nil {
			out = append(out, candidate{conv: Conversation{Session: chat.Session{Title: fmt.Sprintf("#%d", i+1)}}, reason: ReasonMalformed, detail: err.Error()})
			continue
		}
		sess := chat.Session{Kind: chat.KindChat, Title: c.Name, Toolsets: []string{}, CreatedAt: isoMs(c.CreatedAt), UpdatedAt: isoMs(c.UpdatedAt)}
		var msgs []chat.Message
		for _, m := range c.Messages {
			if msg, ok := claudeMsg(m, sess.CreatedAt); ok {
				msgs = append(msgs, msg)
			}
		}
		out = append(out, candidate{conv: Conversation{Session: sess, Messages: msgs}})
	}
	return out
}

func claudeMsg(m claudeMessage, fallback int64) (chat.Message, bool) {
	at := isoMs(m.CreatedAt)
	if at == 0 {
		at = fallback
	}
	role := chat.RoleAssistant
	if m.Sender == "human" {
		role = chat.RoleUser
	}
	msg := chat.Message{Role: role, Status: chat.MessageComplete, CreatedAt: at, UpdatedAt: at, Parts: []chat.Part{}}
	add := func(p chat.Part) {
		p.State, p.CreatedAt, p.UpdatedAt, p.Index = chat.PartDone, at, at, len(msg.Parts)
		msg.Parts = append(msg.Parts, p)
	}
	blocks := m.Content
	if len(blocks) == 0 && m.Text != "" {
		blocks = []claudeBlock{{Type: "text", Text: m.Text}}
	}
	for _, b := range blocks {
		switch {
		case b.Type == "text" && strings.TrimSpace(b.Text) != "":
			add(chat.Part{Type: chat.PartText, Text: b.Text})
		case b.Type == "thinking" && role == chat.RoleAssistant && strings.TrimSpace(b.Thinking) != "":
			add(chat.Part{Type: chat.PartReasoning, Text: b.Thinking})
		case b.Type == "tool_use" && role == chat.RoleAssistant:
			add(chat.Part{Type: chat.PartToolCall, Tool: &chat.ToolInfo{CallID: b.ID, Name: b.Name, Arguments: string(b.Input)}})
		case b.Type == "tool_result" && role == chat.RoleAssistant:
			add(chat.Part{Type: chat.PartType(tools.StatusResult), Tool: &chat.ToolInfo{CallID: b.ID, Name: b.Name, Content: claudeResultText(b.Content)}})
		}
	}
	if role == chat.RoleUser && len(msg.Parts) == 0 {
		return msg, false
	}
	return msg, len(msg.Parts) > 0
}

// claudeResultText is a tool result's text: a string, or the text of its blocks.
func claudeResultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []claudeBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var out []string
	for _, b := range blocks {
		if b.Text != "" {
			out = append(out, b.Text)
		}
	}
	return strings.Join(out, "\n\n")
}

// isoMs is an RFC 3339 time as unix milliseconds (0 when it is not one).
func isoMs(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}
