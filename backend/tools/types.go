// Package tools is Cairn's one tool system: the process-wide registry, the execution
// pipeline and deferred tools. This file holds the types the agent loop (backend/chat)
// exchanges with it; chat defines the interface it needs and tools implements it.
package tools

import (
	"encoding/json"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// ModelCaps are the capabilities of the model a request goes to.
type ModelCaps struct {
	SupportsTools bool `json:"supportsTools"`
	Vision        bool `json:"vision"`
	Reasoning     bool `json:"reasoning"`
	ContextWindow int  `json:"contextWindow"` // tokens; 0 = unknown
}

// Scope is everything a toolset's applies() may look at for one request.
type Scope struct {
	SessionID   string          `json:"sessionId"`
	SessionKind string          `json:"sessionKind"` // "chat" | "task"
	Model       ModelCaps       `json:"model"`
	Toolsets    []string        `json:"toolsets"` // enabled for the session: "web", "kb", "file", "sandbox", "skill", "location", "mcp"
	KBs         []string        `json:"kbs,omitempty"`
	Files       []string        `json:"files,omitempty"`
	Disabled    map[string]bool `json:"disabled,omitempty"` // wire names turned off by the user
	// FoldAll folds every auto tool behind the meta tools, whatever the cost gates say
	// (setting chat.foldAllTools: the way out when tool definitions fill the window).
	FoldAll bool `json:"foldAll,omitempty"`
	// Conversation is the latest user text of the conversation (capped), for a toolset
	// whose instruction ranks what it offers by what the conversation is about. It is
	// never part of a call's JSON.
	Conversation string `json:"-"`
	// Allow, when set, keeps only the tools whose wire name it accepts (a sub-agent's
	// tools are its type's within its parent's); nil keeps every tool. Never in JSON.
	Allow func(name string) bool `json:"-"`
	// Agent names the sub-agent on whose behalf the calls of this scope run (nil for the
	// session's own model): the approval dialog says who asks.
	Agent *Agent `json:"agent,omitempty"`
}

// Agent is a sub-agent as its calls carry it: its name and its own conversation.
type Agent struct {
	Name      string `json:"name"`
	SessionID string `json:"sessionId"`
}

// allows reports whether the scope keeps a tool by its Allow filter.
func (s Scope) allows(name string) bool { return s.Allow == nil || s.Allow(name) }

// HasToolset reports whether the session enabled a toolset.
func (s Scope) HasToolset(name string) bool {
	for _, t := range s.Toolsets {
		if t == name {
			return true
		}
	}
	return false
}

// Definition is one tool as the model sees it (OpenAI "function" tool).
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Selection is the tool set of one request and the instructions toolsets add to the
// system prompt, sorted by wire name so the prompt prefix is stable.
type Selection struct {
	Tools        []Definition `json:"tools"`
	Instructions string       `json:"instructions"`
	Deferred     []string     `json:"deferred,omitempty"` // wire names folded behind the meta tools
	ToolTokens   int          `json:"toolTokens"`         // prompt tokens of Tools (o200k_base)
}

// Call is one tool call the model made.
type Call struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // raw JSON text as the model produced it
	SessionID string `json:"sessionId"`
	MessageID string `json:"messageId"`
	Scope     Scope  `json:"scope"`
}

// Status is how a call ended.
type Status string

// The three ends of a call; each becomes a part of the same name.
const (
	StatusResult  Status = "tool-result"
	StatusError   Status = "tool-error"
	StatusStopped Status = "tool-stopped"
)

// Progress is reported while a call runs, routed to that call's tool card.
type Progress struct {
	CallID   string  `json:"callId"`
	Kind     string  `json:"kind"` // "generic" | "mcp" | "bash" | "web" | …
	Message  string  `json:"message,omitempty"`
	Progress float64 `json:"progress,omitempty"`
	Total    float64 `json:"total,omitempty"`
}

// Outcome is the end of one call: Content is what the model reads (always readable text);
// Err is what the UI renders; SpillPath is set when a large result was written to disk.
type Outcome struct {
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`
	Status    Status          `json:"status"`
	Content   string          `json:"content"`
	Display   json.RawMessage `json:"display,omitempty"` // structured result for the tool card
	Err       *apperr.Error   `json:"error,omitempty"`
	SpillPath string          `json:"spillPath,omitempty"`
	Size      int             `json:"size,omitempty"` // bytes of the full result
	// Images are the result's images as the pipeline saved them.
	Images   []ImageRef    `json:"images,omitempty"`
	Duration time.Duration `json:"duration"`
}

// Observer is told about each call of a batch as it starts, progresses and ends, so the
// agent loop can persist parts and broadcast them while the batch runs.
type Observer interface {
	CallStarted(call Call)
	CallProgress(p Progress)
	CallFinished(o Outcome)
}
