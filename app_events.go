package main

import (
	"github.com/cairn-app/cairn/backend/agents"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/elicit"
	"github.com/cairn-app/cairn/backend/kb"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/sandbox"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/skills"
	"github.com/cairn-app/cairn/backend/tasks"
)

// wireEvents names the payload of every event type a window receives (the event tag is
// the type), so the TypeScript types generated from the facade (backend/cmd/tsgen)
// cover the events too. Nothing uses a value of it.
type wireEvents struct {
	SettingsChanged  settings.Snapshot     `event:"settings:changed"`
	SecretsChanged   secrets.Snapshot      `event:"secrets:changed"`
	ProvidersChanged llm.ProvidersSnapshot `event:"providers:changed"`
	// Message with its parts.
	MessageAppended chat.Message `event:"message:appended"`
	// Message without parts (status, usage, error).
	MessageUpdated chat.Message `event:"message:updated"`
	// Messages that left the path for another version (kept on their branch).
	MessagesHidden chat.MessagesHidden `event:"messages:hidden"`
	// Another version was chosen: reload the snapshot.
	BranchSelected chat.BranchSelected `event:"branch:selected"`
	PartAppended   chat.Part           `event:"part:appended"`
	PartDelta      chat.PartDelta      `event:"part:delta"`
	// The full part, replacing the one with its id.
	PartUpdated     chat.Part        `event:"part:updated"`
	SessionState    chat.StateChange `event:"session:state"`
	SessionUpdated  chat.Session     `event:"session:updated"`
	SessionDeleted  chat.SessionRef  `event:"session:deleted"`
	SessionsUpsert  chat.Session     `event:"sessions:upserted"`
	SessionsRemoved chat.SessionRef  `event:"sessions:removed"`
	// A new pending request: show the dialog.
	ApprovalRequested approval.Request `event:"approval:requested"`
	// Decided, cancelled or interrupted: close the dialog.
	ApprovalDecided approval.Request     `event:"approval:decided"`
	ApprovalResumed approval.Request     `event:"approval:resumed"`
	RulesChanged    approval.RuleList    `event:"permission:rules"`
	ModeChanged     approval.SessionMode `event:"permission:mode"`
	// The user's sub-agent types changed: reload them.
	AgentTypesChanged agents.TypesChanged `event:"agents:types"`
	MCPServer         mcp.ServerView      `event:"mcp:server"`
	MCPServerRemoved  struct {
		ID string `json:"id"`
	} `event:"mcp:server-removed"`
	MCPLog mcp.LogEvent `event:"mcp:log"`
	// A knowledge base file's ingest state (topic kb:<id>, coalesced).
	KBFile kb.Progress `event:"kb:file"`
	// The list of knowledge bases or of a base's files changed (topic kb).
	KBChanged struct{} `event:"kb:changed"`
	// A re-embed's progress (topic kb), and the KBs a session attached.
	KBReembed  kb.ReembedProgress `event:"kb:reembed"`
	KBAttached kb.SessionKBs      `event:"kb:attached"`
	// The skills found or their switches changed (topic skills); a conversation's own
	// switches changed.
	SkillsChanged       struct{}              `event:"skills:changed"`
	SkillsSessionChange skills.SessionChanged `event:"skills:session"`
	ToolsPrefs          struct {
		Name    string `json:"name"`
		Enabled bool   `json:"enabled"`
	} `event:"tools:prefs"`

	// A background task started, wrote output or ended (topic tasks:<session>); one
	// that is gone with its session.
	TaskUpdated tasks.Task `event:"task:updated"`
	TaskRemoved tasks.Task `event:"task:removed"`
	// A task session's workspace changed (topic session:<id>).
	SandboxWorkspace sandbox.Workspace `event:"sandbox:workspace"`

	// An MCP server asks the user for input: show the form.
	ElicitationRequested elicit.Request `event:"elicitation:requested"`
	// Answered (or the server stopped waiting): close the form.
	ElicitationAnswered elicit.Request `event:"elicitation:answered"`
}
