package transfer

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/tools"
)

// gptConversation is one entry of ChatGPT's conversations.json: a tree of nodes, of
// which current_node is the leaf of the branch the user last saw.
type gptConversation struct {
	ID          string             `json:"id"`
	Title       string             `json:"title"`
	CreateTime  float64            `json:"create_time"`
	UpdateTime  float64            `json:"update_time"`
	CurrentNode string             `json:"current_node"`
	Mapping     map[string]gptNode `json:"mapping"`
}

type gptNode struct {
	ID       string      `json:"id"`
	Parent   *string     `json:"parent"`
	Children []string    `json:"children"`
	Message  *gptMessage `json:"message"`
}

type gptMessage struct {
	ID     string `json:"id"`
	Author struct {
		Role string `json:"role"`
		Name string `json:"name"`
	} `json:"author"`
	CreateTime *float64 `json:"create_time"`
	Content    struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
		Text        string            `json:"text"`
		Language    string            `json:"language"`
		Thoughts    []struct {
			Summary string `json:"summary"`
			Content string `json:"content"`
		} `json:"thoughts"`
	} `json:"content"`
	Recipient string `json:"recipient"`
	Metadata  struct {
		ModelSlug string `json:"model_slug"`
		Hidden    bool   `json:"is_visually_hidden_from_conversation"`
	} `json:"metadata"`
}

// parseList reads a list of conversations: Claude's export when its entries have
// chat_messages, else ChatGPT's.
func parseList(name string, data []byte) (string, []candidate, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return "", nil, invalid(name, err.Error())
	}
	if isClaude(raw) {
		return "claude", parseClaude(raw), nil
	}
	cands, err := parseChatGPT(name, raw)
	return "chatgpt", cands, err
}

// parseChatGPT reads ChatGPT's conversations.json. Each conversation is the path from
// its root to current_node (the branch shown last); system and hidden messages are left
// out, a run of assistant and tool messages becomes one Cairn answer with tool parts.
func parseChatGPT(name string, raw []json.RawMessage) ([]candidate, error) {
	out := make([]candidate, 0, len(raw))
	trees := 0
	for i, r := range raw {
		var g gptConversation
		if err := json.Unmarshal(r, &g); err != nil {
			out = append(out, candidate{conv: Conversation{Session: chat.Session{Title: fmt.Sprintf("#%d", i+1)}},
				reason: ReasonMalformed, detail: err.Error()})
			continue
		}
		if g.Mapping != nil {
			trees++
		}
		out = append(out, gptCandidate(g))
	}
	if trees == 0 && len(raw) > 0 {
		return nil, invalid(name, "it is neither a Cairn export nor ChatGPT's conversations.json")
	}
	return out, nil
}

func gptCandidate(g gptConversation) candidate {
	sess := chat.Session{Kind: chat.KindChat, Title: g.Title, Toolsets: []string{}, CreatedAt: ms(g.CreateTime), UpdatedAt: ms(g.UpdateTime)}
	c := candidate{conv: Conversation{Session: sess}}
	path, err := gptPath(g)
	if err != nil {
		c.reason, c.detail = ReasonMalformed, err.Error()
		return c
	}
	var msgs []chat.Message
	for _, n := range path {
		msgs = gptAppend(msgs, n.Message, sess.CreatedAt)
	}
	c.conv.Messages = msgs
	return c
}

// gptPath is the chosen branch, root first: current_node and its parents.
func gptPath(g gptConversation) ([]gptNode, error) {
	if len(g.Mapping) == 0 {
		return nil, fmt.Errorf("it has no messages (mapping)")
	}
	id := g.CurrentNode
	if id == "" {
		return nil, fmt.Errorf("it names no current_node")
	}
	var path []gptNode
	seen := map[string]bool{}
	for id != "" {
		n, ok := g.Mapping[id]
		if !ok {
			return nil, fmt.Errorf("node %s is not in its mapping", id)
		}
		if seen[id] {
			return nil, fmt.Errorf("its mapping has a cycle at %s", id)
		}
		seen[id] = true
		path = append(path, n)
		id = ""
		if n.Parent != nil {
			id = *n.Parent
		}
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path, nil
}

// gptAppend adds one ChatGPT message to the Cairn messages: a user message of its own,
// assistant and tool output onto the answer in progress.
func gptAppend(msgs []chat.Message, m *gptMessage, fallback int64) []chat.Message {
	if m == nil || m.Metadata.Hidden {
		return msgs
	}
	at := fallback
	if m.CreateTime != nil {
		at = ms(*m.CreateTime)
	}
	role := m.Author.Role
	switch role {
	case "user":
		text := gptText(m)
		if strings.TrimSpace(text) == "" {
			return msgs
		}
		return append(msgs, chat.Message{Role: chat.RoleUser, Status: chat.MessageComplete, CreatedAt: at, UpdatedAt: at,
			Parts: []chat.Part{{Type: chat.PartText, State: chat.PartDone, Text: text, CreatedAt: at, UpdatedAt: at}}})
	case "assistant", "tool":
	default:
		return msgs // system and anything newer
	}
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != chat.RoleAssistant {
		msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Status: chat.MessageComplete, CreatedAt: at, UpdatedAt: at, Parts: []chat.Part{}})
	}
	a := &msgs[len(msgs)-1]
	a.UpdatedAt = at
	if m.Metadata.ModelSlug != "" {
		a.Model = m.Metadata.ModelSlug
	}
	for _, p := range gptParts(m, a, at) {
		p.Index = len(a.Parts)
		a.Parts = append(a.Parts, p)
	}
	return msgs
}

// gptParts are the Cairn parts of an assistant or tool message: text, reasoning
// (thoughts), a call (code sent to a tool) or a tool's output, paired with the last call.
func gptParts(m *gptMessage, a *chat.Message, at int64) []chat.Part {
	part := func(t chat.PartType) chat.Part {
		return chat.Part{Type: t, State: chat.PartDone, CreatedAt: at, UpdatedAt: at}
	}
	switch {
	case m.Content.ContentType == "thoughts":
		var texts []string
		for _, t := range m.Content.Thoughts {
			texts = append(texts, strings.TrimSpace(strings.TrimSpace(t.Summary+"\n\n"+t.Content)))
		}
		p := part(chat.PartReasoning)
		p.Text = strings.Join(texts, "\n\n")
		return nonEmpty(p)
	case m.Author.Role == "assistant" && m.Recipient != "" && m.Recipient != "all":
		p := part(chat.PartToolCall)
		p.Tool = &chat.ToolInfo{CallID: fmt.Sprintf("call_%d", len(a.Parts)), Name: m.Recipient, Arguments: gptText(m)}
		return []chat.Part{p}
	case m.Author.Role == "tool":
		call := lastCall(a)
		if call == "" {
			c := part(chat.PartToolCall)
			call = fmt.Sprintf("call_%d", len(a.Parts))
			c.Tool = &chat.ToolInfo{CallID: call, Name: m.Author.Name}
			p := part(chat.PartType(tools.StatusResult))
			p.Tool = &chat.ToolInfo{CallID: call, Name: m.Author.Name, Content: gptText(m)}
			return []chat.Part{c, p}
		}
		p := part(chat.PartType(tools.StatusResult))
		p.Tool = &chat.ToolInfo{CallID: call, Name: m.Author.Name, Content: gptText(m)}
		return []chat.Part{p}
	}
	p := part(chat.PartText)
	p.Text = gptText(m)
	return nonEmpty(p)
}

func nonEmpty(p chat.Part) []chat.Part {
	if strings.TrimSpace(p.Text) == "" {
		return nil
	}
	return []chat.Part{p}
}

// lastCall is the call id of the answer's last tool call that has no end yet.
func lastCall(a *chat.Message) string {
	ended := map[string]bool{}
	for _, p := range a.Parts {
		if p.Tool != nil && p.Type != chat.PartToolCall {
			ended[p.Tool.CallID] = true
		}
	}
	for i := len(a.Parts) - 1; i >= 0; i-- {
		if p := a.Parts[i]; p.Type == chat.PartToolCall && !ended[p.Tool.CallID] {
			return p.Tool.CallID
		}
	}
	return ""
}

// gptText is a message's text: its string parts (a non-text part such as an image is
// named in brackets), or its text field (code, execution output).
func gptText(m *gptMessage) string {
	if m.Content.Text != "" {
		return m.Content.Text
	}
	var out []string
	for _, raw := range m.Content.Parts {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out = append(out, s)
			continue
		}
		var obj struct {
			ContentType string `json:"content_type"`
		}
		if json.Unmarshal(raw, &obj) == nil && obj.ContentType != "" {
			out = append(out, "["+obj.ContentType+"]")
		}
	}
	return strings.Join(out, "\n\n")
}

// ms is ChatGPT's seconds (a float) as Cairn's unix milliseconds.
func ms(sec float64) int64 {
	if sec <= 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
		return 0
	}
	return int64(math.Round(sec * 1000))
}
