// Package chat owns sessions, their messages (stored as ordered parts, written while they
// stream) and the agent loop: model → tool calls → results → model, with stop, errors and
// crash recovery. Every change is announced on the bus (topics `session:<id>` and
// `sessions`); docs/CHAT-API.md describes the shapes for the windows.
package chat

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/tools"
)

// ToolRunner is what the loop needs from the tool system: the tools of one request, the
// execution of one turn's calls (in parallel where the tools allow it), and forgetting a
// deleted session (what the runner keeps for it in memory and on disk). Invalid
// argument JSON is passed through; the runner turns it into a tool error the model reads.
type ToolRunner interface {
	Select(ctx context.Context, scope tools.Scope) (tools.Selection, error)
	RunBatch(ctx context.Context, calls []tools.Call, obs tools.Observer) []tools.Outcome
	Forget(sessionID string) error
	// Describe names a tool for people (namespace, MCP server, title); false when the
	// name is no tool Cairn knows.
	Describe(name string) (tools.ToolRef, bool)
}

// ApprovalObserver is implemented by the observer RunBatch receives, so the approval step
// of the pipeline can put its parts in the message and move the session to
// awaiting-approval (and back) without knowing how parts are stored. data is the JSON the
// approval feature owns; it is stored and broadcast as the part's "data".
type ApprovalObserver interface {
	ApprovalRequested(callID string, data json.RawMessage)
	ApprovalDecided(callID string, data json.RawMessage)
}

// Models resolves a session's provider and model to a client (*llm.Service).
type Models interface {
	Resolve(ctx context.Context, providerRef, model string) (llm.Target, error)
}

// Prices says what a provider's model costs (*llm.Service); nil when it has no price.
type Prices interface {
	PriceOf(ctx context.Context, providerID, model string) *llm.ModelPrice
}

// Settings is the part of the settings service the loop reads (*settings.Service).
type Settings interface {
	Int(ctx context.Context, key string) int
	Bool(ctx context.Context, key string) bool
	String(ctx context.Context, key string) string
	Duration(ctx context.Context, key string) time.Duration
}

// PartType is the kind of a part; tool-result, tool-error and tool-stopped equal the
// tools.Status values.
type PartType string

// Part types.
const (
	PartText              PartType = "text"
	PartReasoning         PartType = "reasoning"
	PartToolCall          PartType = "tool-call"
	PartToolResult        PartType = PartType(tools.StatusResult)
	PartToolError         PartType = PartType(tools.StatusError)
	PartToolStopped       PartType = PartType(tools.StatusStopped)
	PartApprovalRequested PartType = "approval-requested"
	PartApprovalDecided   PartType = "approval-decided"
	PartStatus            PartType = "status"
	PartAttachment        PartType = "attachment"
)

// Part states: a part is streaming while deltas arrive, done afterwards.
const (
	PartStreaming = "streaming"
	PartDone      = "done"
)

// Part is one piece of a message. Text is set for text, reasoning and the user's text;
// Tool for tool-call and the three tool ends; Status for status; Data for approval parts;
// Attachment for a file on a user message.
type Part struct {
	ID        string          `json:"id"`
	MessageID string          `json:"messageId"`
	Index     int             `json:"index"`
	Round     int             `json:"round"`
	Type      PartType        `json:"type"`
	State     string          `json:"state"`
	Text      string          `json:"text,omitempty"`
	Tool      *ToolInfo       `json:"tool,omitempty"`
	Status    *StatusInfo     `json:"status,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	// Attachment is the file of an attachment part.
	Attachment *Attachment `json:"attachment,omitempty"`
	CreatedAt  int64       `json:"createdAt"`
	UpdatedAt  int64       `json:"updatedAt"`
}

// ToolInfo is the tool side of a part: the call (tool-call) or its end (tool-result,
// tool-error, tool-stopped), paired by CallID.
type ToolInfo struct {
	CallID string `json:"callId"`
	Name   string `json:"name"`
	// The tool as people name it (tools.ToolRef), set when the part is written, so that a
	// window never reads a wire name; absent for a name that is no known tool.
	tools.ToolRef
	Arguments string          `json:"arguments,omitempty"` // tool-call: the model's JSON text, as sent
	StartedAt int64           `json:"startedAt,omitempty"` // tool-call: unix ms when it began to run
	Progress  *tools.Progress `json:"progress,omitempty"`  // tool-call: the latest progress
	Content   string          `json:"content,omitempty"`   // end: what the model reads
	Display   json.RawMessage `json:"display,omitempty"`   // end: structured result for the card
	Error     *apperr.Error   `json:"error,omitempty"`     // end: what the UI renders
	SpillPath string          `json:"spillPath,omitempty"`
	// Images are the images the tool returned, as the pipeline saved them (end parts).
	Images     []tools.ImageRef `json:"images,omitempty"`
	Size       int              `json:"size,omitempty"`
	DurationMs int64            `json:"durationMs,omitempty"`
}

// Status part kinds.
const (
	StatusRetry    = "retry"     // a rate-limited request is retried after a wait
	StatusError    = "error"     // the message ended with Error
	StatusToolCost = "tool-cost" // the tool definitions take more of the window than the setting allows
	StatusNotice   = "notice"    // the model was told of something that happened meanwhile (Notice)
)

// Notices are what the model is told at the start of a round about what happened outside
// the conversation meanwhile: a background task it started ended. Pending are those not
// told yet; Delivered marks them told once they are in the round's request.
type Notices interface {
	Pending(ctx context.Context, sessionID string) []Notice
	Delivered(ctx context.Context, sessionID string, ids []string)
}

// Notice is one such thing: Text is what the model reads (a user-role message before the
// round's request, and so again in every later request of the conversation); the other
// fields are what the window's status line shows.
type Notice struct {
	ID   string `json:"id"`   // what it is about: the task id
	Kind string `json:"kind"` // "task-ended"
	// Title, State and ExitCode describe the task: its command, how it ended.
	Title    string `json:"title,omitempty"`
	State    string `json:"state,omitempty"`
	ExitCode *int   `json:"exitCode,omitempty"`
	Text     string `json:"text"`
}

// StatusInfo is a status line inside a message.
type StatusInfo struct {
	Kind     string        `json:"kind"`
	Error    *apperr.Error `json:"error,omitempty"`
	Attempt  int           `json:"attempt,omitempty"`
	WaitMs   int64         `json:"waitMs,omitempty"`
	ToolCost *ToolCost     `json:"toolCost,omitempty"`
	Notice   *Notice       `json:"notice,omitempty"`
}

// ToolCost is what a tool-cost notice says: the request's tool definitions cost Tokens
// of a Window of which Limit percent was allowed (chat.toolContextShare). WindowKnown is
// false when the model's window is unknown and tools.UnknownContextWindow was assumed;
// Folded counts the tools already folded and FoldAll says whether every foldable one is.
type ToolCost struct {
	Tokens      int  `json:"tokens"`
	Window      int  `json:"window"`
	WindowKnown bool `json:"windowKnown"`
	Percent     int  `json:"percent"`
	Limit       int  `json:"limit"`
	Tools       int  `json:"tools"`
	Folded      int  `json:"folded"`
	FoldAll     bool `json:"foldAll"`
}

// Message statuses.
const (
	MessageComplete    = "complete"
	MessageStreaming   = "streaming"
	MessageStopped     = "stopped"
	MessageError       = "error"
	MessageInterrupted = "interrupted" // the process died while it streamed
)

// Roles of stored messages.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one user or assistant message; an assistant message holds every round of
// one answer (reasoning, text, tool calls and results).
type Message struct {
	ID           string     `json:"id"`
	SessionID    string     `json:"sessionId"`
	Seq          int        `json:"seq"`
	Role         string     `json:"role"`
	Status       string     `json:"status"`
	ProviderID   string     `json:"providerId,omitempty"`
	Model        string     `json:"model,omitempty"`
	FinishReason string     `json:"finishReason,omitempty"`
	Usage        *llm.Usage `json:"usage,omitempty"`
	// Cost is what the answer cost at its model's current price (llm.CostOf); absent
	// when the model has no price or the usage cannot be priced exactly. Worked out
	// when the message is read or announced, never stored, so a changed price applies
	// to every answer at once.
	Cost  *llm.Cost     `json:"cost,omitempty"`
	Error *apperr.Error `json:"error,omitempty"`
	// ParentID is the message this one follows ("" for the first); ChosenChildID the
	// follower the conversation goes on with ("" = the newest). Siblings (same parent)
	// are versions: a regenerated answer, an edited question.
	ParentID      string `json:"parentId,omitempty"`
	ChosenChildID string `json:"chosenChildId,omitempty"`
	// SiblingIDs are the versions at this place, oldest first, this one included; set on
	// the messages of a snapshot's path when there is more than one.
	SiblingIDs []string `json:"siblingIds,omitempty"`
	// Parts is omitted in message:updated events (keep the parts you have).
	Parts     []Part `json:"parts,omitempty"`
	CreatedAt int64  `json:"createdAt"`
	UpdatedAt int64  `json:"updatedAt"`
}

// Session kinds.
const (
	KindChat = "chat"
	KindTask = "task"
)

// State is a session's state, derived in one place (Service.State) from its run.
type State string

// Session states.
const (
	StateIdle             State = "idle"
	StateStreaming        State = "streaming"
	StateAwaitingApproval State = "awaiting-approval"
)

// EditMode says what EditAndResend does to later messages, which the UI states: they
// stay, on the earlier version's branch.
const EditMode = "branch"

// Session is one conversation and its settings.
type Session struct {
	ID           string   `json:"id"`
	Kind         string   `json:"kind"`
	Title        string   `json:"title"`
	ProviderID   string   `json:"providerId"` // "" = the default provider
	Model        string   `json:"model"`      // "" = the provider's default model
	SystemPrompt string   `json:"systemPrompt"`
	Temperature  *float64 `json:"temperature"` // null = the provider's default
	TopP         *float64 `json:"topP"`        // null = the provider's default
	// MaxTokens bounds each answer (0 = the model's default); ContextMessages is how many
	// earlier messages of the path a request carries besides the question (0 = all).
	MaxTokens       int      `json:"maxTokens"`
	ContextMessages int      `json:"contextMessages"`
	Toolsets        []string `json:"toolsets"`
	// Reasoning is the conversation's reasoning choice over its model's (zero = the
	// model's setting); sent only to providers that have the control.
	Reasoning llm.Reasoning `json:"reasoning"`
	State     State         `json:"state"`
	CreatedAt int64         `json:"createdAt"`
	UpdatedAt int64         `json:"updatedAt"`
	// ActiveAt is when the conversation last had a message (its creation before that):
	// the list's order, which a rename or a settings change leaves alone.
	ActiveAt int64 `json:"activeAt"`
	// Pinned conversations lead the list; archived ones leave it (search still finds
	// them, and the Archived view restores them).
	Pinned   bool `json:"pinned"`
	Archived bool `json:"archived"`
	// ChosenRootID is the first message of the chosen path ("" = the newest first one).
	ChosenRootID string `json:"chosenRootId,omitempty"`
	// ParentID is the session whose tool call ParentCallID started this one (a
	// sub-agent's conversation); such a session is left out of the list and opened from
	// its parent's card.
	ParentID     string `json:"parentId,omitempty"`
	ParentCallID string `json:"parentCallId,omitempty"`
}

// SessionInput creates a session; empty fields take defaults (kind chat, the last used
// provider and model).
type SessionInput struct {
	Kind         string   `json:"kind,omitempty"`
	Title        string   `json:"title,omitempty"`
	ProviderID   string   `json:"providerId,omitempty"`
	Model        string   `json:"model,omitempty"`
	SystemPrompt string   `json:"systemPrompt,omitempty"`
	Temperature  *float64 `json:"temperature,omitempty"`
	TopP         *float64 `json:"topP,omitempty"`
	MaxTokens    int      `json:"maxTokens,omitempty"`
	// ContextMessages limits the earlier messages sent (0 = all).
	ContextMessages int           `json:"contextMessages,omitempty"`
	Toolsets        []string      `json:"toolsets,omitempty"`
	Reasoning       llm.Reasoning `json:"reasoning,omitempty"`
	// ReuseEmpty returns the newest conversation of the kind that has no messages, no
	// title and is not archived, instead of making another (New chat in the window), with
	// the other fields applied only to a new one.
	ReuseEmpty bool `json:"reuseEmpty,omitempty"`
}

// SessionPatch changes the given fields of a session (nil = unchanged).
type SessionPatch struct {
	Title            *string   `json:"title,omitempty"`
	ProviderID       *string   `json:"providerId,omitempty"`
	Model            *string   `json:"model,omitempty"`
	SystemPrompt     *string   `json:"systemPrompt,omitempty"`
	Temperature      *float64  `json:"temperature,omitempty"`
	ResetTemperature bool      `json:"resetTemperature,omitempty"`
	TopP             *float64  `json:"topP,omitempty"`
	ResetTopP        bool      `json:"resetTopP,omitempty"`
	MaxTokens        *int      `json:"maxTokens,omitempty"`
	ContextMessages  *int      `json:"contextMessages,omitempty"`
	Toolsets         *[]string `json:"toolsets,omitempty"`
	// Reasoning replaces the conversation's reasoning choice (the zero value returns to
	// the model's setting).
	Reasoning *llm.Reasoning `json:"reasoning,omitempty"`
}

// SessionList is the sidebar, stamped with the sessions topic's seq.
type SessionList struct {
	Seq      uint64    `json:"seq"`
	Sessions []Session `json:"sessions"`
}

// Snapshot is one session with the messages of its chosen path (the conversation as it
// is shown and sent to the model; other versions are named by SiblingIDs), stamped with its topic's seq: apply
// only events with a higher seq.
type Snapshot struct {
	Seq      uint64    `json:"seq"`
	Session  Session   `json:"session"`
	Messages []Message `json:"messages"`
	State    State     `json:"state"`
	EditMode string    `json:"editMode"`
}

// SendResult names the messages a send created; the answer streams as events.
type SendResult struct {
	SessionID          string `json:"sessionId"`
	UserMessageID      string `json:"userMessageId,omitempty"`
	AssistantMessageID string `json:"assistantMessageId"`
	// HiddenMessageIDs left the chosen path (the earlier version's branch); they are kept.
	HiddenMessageIDs []string `json:"hiddenMessageIds,omitempty"`
	EditMode         string   `json:"editMode,omitempty"`
}

// Event types on the topic `session:<id>`.
const (
	EventMessageAppended = "message:appended" // Message with its parts
	EventMessageUpdated  = "message:updated"  // Message without parts (status, usage, error)
	EventMessagesHidden  = "messages:hidden"  // MessagesHidden
	EventBranchSelected  = "branch:selected"  // BranchSelected: reload the snapshot
	EventPartAppended    = "part:appended"    // Part
	EventPartDelta       = "part:delta"       // PartDelta
	EventPartUpdated     = "part:updated"     // Part (full, replaces the one with its id)
	EventSessionState    = "session:state"    // StateChange
	EventSessionUpdated  = "session:updated"  // Session
	EventSessionDeleted  = "session:deleted"  // SessionRef
)

// Event types on the topic `sessions`.
const (
	EventSessionsUpserted = "sessions:upserted" // Session (new, renamed, state changed)
	EventSessionsRemoved  = "sessions:removed"  // SessionRef
)

// PartDelta appends Text to a streaming part's field ("text" or, for tool-call,
// "arguments"). Offset is the field's length in UTF-16 code units (JavaScript
// string.length) before the append: apply it as field = field.slice(0, offset) + text
// when offset <= field.length, and reload the snapshot when offset > field.length.
type PartDelta struct {
	MessageID string `json:"messageId"`
	PartID    string `json:"partId"`
	Index     int    `json:"index"`
	Field     string `json:"field"`
	Offset    int    `json:"offset"`
	Text      string `json:"text"`
}

// MessagesHidden lists messages that left the chosen path when regenerate or
// edit-and-resend started a new version; they stay stored, on their branch.
type MessagesHidden struct {
	SessionID  string   `json:"sessionId"`
	MessageIDs []string `json:"messageIds"`
}

// BranchSelected says another version was chosen; the path after it changed.
type BranchSelected struct {
	SessionID string `json:"sessionId"`
	MessageID string `json:"messageId"`
}

// StateChange announces a session's new state; MessageID is the message being answered.
type StateChange struct {
	SessionID string `json:"sessionId"`
	State     State  `json:"state"`
	MessageID string `json:"messageId,omitempty"`
}

// SessionRef names a session.
type SessionRef struct {
	SessionID string `json:"sessionId"`
}
