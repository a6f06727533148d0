package transfer

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/chat"
)

// Labels are the words a Markdown export is written with; the window passes its
// language's, the CLI gets the English defaults.
type Labels struct {
	User      string `json:"user,omitempty"`
	Assistant string `json:"assistant,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Result    string `json:"result,omitempty"`
	Error     string `json:"error,omitempty"`
	System    string `json:"system,omitempty"`
}

func (l Labels) withDefaults() Labels {
	def := Labels{User: "You", Assistant: "Assistant", Reasoning: "Reasoning", Tool: "Tool", Arguments: "Arguments",
		Result: "Result", Error: "Error", System: "System prompt"}
	pick := func(v, d string) string {
		if strings.TrimSpace(v) == "" {
			return d
		}
		return v
	}
	return Labels{User: pick(l.User, def.User), Assistant: pick(l.Assistant, def.Assistant), Reasoning: pick(l.Reasoning, def.Reasoning),
		Tool: pick(l.Tool, def.Tool), Arguments: pick(l.Arguments, def.Arguments), Result: pick(l.Result, def.Result),
		Error: pick(l.Error, def.Error), System: pick(l.System, def.System)}
}

// Markdown is a conversation to read, along its chosen path: its title, a heading per
// turn (who, which model, when, and "2/3" for a message with other versions), text as
// written, reasoning (when asked for) and each tool call in a collapsed
// <details> with its arguments and result.
func Markdown(c Conversation, opt ExportOptions) string {
	l := opt.Labels.withDefaults()
	var b strings.Builder
	title := c.Session.Title
	if title == "" {
		title = c.Session.ID
	}
	fmt.Fprintf(&b, "# %s\n\n", oneLine(title))
	if c.Session.SystemPrompt != "" {
		fmt.Fprintf(&b, "> **%s:** %s\n\n", l.System, strings.ReplaceAll(c.Session.SystemPrompt, "\n", "\n> "))
	}
	for _, m := range chat.Path(c.Messages, c.Session.ChosenRootID) {
		who := l.User
		if m.Role == chat.RoleAssistant {
			who = l.Assistant
			if m.Model != "" {
				who += " (" + oneLine(m.Model) + ")"
			}
		}
		when := time.UnixMilli(m.CreatedAt).UTC().Format("2006-01-02 15:04 UTC")
		if n := len(m.SiblingIDs); n > 1 {
			when += fmt.Sprintf(" · %d/%d", slices.Index(m.SiblingIDs, m.ID)+1, n)
		}
		fmt.Fprintf(&b, "## %s · %s\n\n", who, when)
		writeParts(&b, m, l, opt.Reasoning)
		if m.Error != nil {
			fmt.Fprintf(&b, "> **%s:** %s\n\n", l.Error, oneLine(m.Error.Message))
		}
	}
	return b.String()
}

func writeParts(b *strings.Builder, m chat.Message, l Labels, reasoning bool) {
	ends := map[string]chat.Part{}
	for _, p := range m.Parts {
		if p.Tool != nil && p.Type != chat.PartToolCall {
			ends[p.Tool.CallID] = p
		}
	}
	for _, p := range m.Parts {
		switch p.Type {
		case chat.PartText:
			if t := strings.TrimSpace(p.Text); t != "" {
				b.WriteString(t + "\n\n")
			}
		case chat.PartReasoning:
			if reasoning && strings.TrimSpace(p.Text) != "" {
				fmt.Fprintf(b, "<details>\n<summary>%s</summary>\n\n%s\n\n</details>\n\n", html.EscapeString(l.Reasoning), strings.TrimSpace(p.Text))
			}
		case chat.PartToolCall:
			writeTool(b, p, ends[p.Tool.CallID], l)
		}
	}
}

func writeTool(b *strings.Builder, call, end chat.Part, l Labels) {
	name := call.Tool.Name
	if call.Tool.Title != "" {
		name = call.Tool.Title
	}
	fmt.Fprintf(b, "<details>\n<summary>%s: %s</summary>\n\n", html.EscapeString(l.Tool), html.EscapeString(oneLine(name)))
	if call.Tool.Arguments != "" {
		fmt.Fprintf(b, "%s:\n\n%s\n\n", l.Arguments, fence(call.Tool.Arguments, "json"))
	}
	if end.Tool != nil {
		label := l.Result
		if end.Type == chat.PartToolError {
			label = l.Error
		}
		text := end.Tool.Content
		if text == "" && end.Tool.Error != nil {
			text = end.Tool.Error.Message
		}
		fmt.Fprintf(b, "%s:\n\n%s\n\n", label, fence(text, ""))
	}
	b.WriteString("</details>\n\n")
}

// fence puts text in a code fence longer than any run of backticks inside it.
func fence(text, lang string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
