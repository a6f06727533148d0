// Package approval is the authority over approvals and permissions (APPR-1..3): it is the
// tools.Permission of the pipeline, so every call is judged here by the session's mode
// and the stored rules (backend/permission), and a call that needs the user's decision is
// stored as a request in SQLite, announced to every window and suspended until one
// decision — the first, applied atomically — or a stop ends it. It also keeps the rules,
// the sessions' modes and the audit log, and recovers requests a previous process left
// pending as interrupted, to be resumed (asked again), never run unasked.
package approval

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
)

// Choice is what a window answers to a request.
type Choice string

// The four answers of APPR-1.
const (
	AllowOnce    Choice = "allow_once"    // run this call
	AllowSession Choice = "allow_session" // run it and stop asking in this session (user_temporary rule)
	AllowAlways  Choice = "allow_always"  // run it and stop asking everywhere (user_permanent rule)
	Deny         Choice = "deny"          // do not run it; the reason goes to the model
)

// ParseChoice accepts a choice's exact name.
func ParseChoice(s string) (Choice, bool) {
	switch c := Choice(s); c {
	case AllowOnce, AllowSession, AllowAlways, Deny:
		return c, true
	}
	return "", false
}

// Status is where a request stands.
type Status string

// Request statuses. Only pending requests can be decided; only interrupted ones resumed.
const (
	StatusPending     Status = "pending"
	StatusAllowed     Status = "allowed"
	StatusDenied      Status = "denied"
	StatusCancelled   Status = "cancelled"   // the turn was stopped while it waited
	StatusInterrupted Status = "interrupted" // the process ended while it waited
	StatusResumed     Status = "resumed"     // asked again after an interruption
)

// Request is one approval request: what the dialog shows and what was decided.
type Request struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	MessageID string `json:"messageId,omitempty"`
	CallID    string `json:"callId"`
	// Tool is the wire name; Namespace and Server (the MCP server's name) say where it
	// comes from, and Title is its name for people (tools.ToolRef; empty when the tool
	// is no longer registered).
	Tool      string          `json:"tool"`
	Namespace string          `json:"namespace,omitempty"`
	Server    string          `json:"server,omitempty"`
	Title     string          `json:"title,omitempty"`
	Args      json.RawMessage `json:"args"`
	// Touches is what the call will touch: paths, URLs, the exact shell command.
	Touches permission.Targets `json:"touches"`
	// Edits are the file changes of a built-in tool's call, as the tool says them (the
	// dialog shows them as a diff); an MCP tool's the dialog guesses from its arguments.
	// Not stored: read again from the stored arguments.
	Edits []tools.Edit `json:"edits,omitempty"`
	// Guessed: Touches were read from the argument names (an MCP tool, whose arguments
	// Cairn does not know), so the dialog may guess a change from them too.
	Guessed     bool            `json:"guessed,omitempty"`
	ReadOnly    bool            `json:"readOnly"`
	Destructive bool            `json:"destructive"`
	Mode        permission.Mode `json:"mode"`
	// AskReason says why the call was not allowed without asking (English, for logs and
	// the terminal); AskReasonCode and AskReasonParams say it for every locale
	// (approval.reasons.<code> in the windows).
	AskReason       string            `json:"askReason"`
	AskReasonCode   string            `json:"askReasonCode"`
	AskReasonParams map[string]string `json:"askReasonParams,omitempty"`
	// Rules are the allow rules "allow for this session" / "always allow" create; empty
	// when no rule can cover the call (a command that hides what it runs): then only
	// allow once and deny are offered.
	Rules []permission.Rule `json:"rules"`

	Status         Status `json:"status"`
	Decision       Choice `json:"decision,omitempty"`
	DecisionReason string `json:"decisionReason,omitempty"`
	Source         string `json:"source,omitempty"`
	Window         string `json:"window,omitempty"`
	// RuleIDs are the rules the decision created.
	RuleIDs     []string `json:"ruleIds,omitempty"`
	ResumedFrom string   `json:"resumedFrom,omitempty"`
	// Agent is the sub-agent that made the call (its name and its own conversation), nil
	// for the session's own model; SessionID is then the session it acts for.
	Agent     *tools.Agent `json:"agent,omitempty"`
	CreatedAt int64        `json:"createdAt"`
	DecidedAt int64        `json:"decidedAt,omitempty"`

	scope       tools.Scope
	fingerprint string
}

// Call is the tool call the request is about, as the pipeline received it (for resume).
func (r Request) Call() tools.Call {
	return tools.Call{ID: r.CallID, Name: r.Tool, Arguments: string(r.Args), SessionID: r.SessionID, MessageID: r.MessageID, Scope: r.scope}
}

// Pending is a list of requests stamped with the approvals topic's seq: apply only
// events with a higher seq.
type Pending struct {
	Seq      uint64    `json:"seq"`
	Requests []Request `json:"requests"`
}

// Event types on the topic `approvals`; each carries a Request.
const (
	EventRequested = "approval:requested" // a new pending request: show the dialog
	EventDecided   = "approval:decided"   // decided, cancelled or interrupted: close the dialog
	EventResumed   = "approval:resumed"   // an interrupted request was resumed
	// EventRulesChanged carries a RuleList; EventModeChanged a SessionMode.
	EventRulesChanged = "permission:rules"
	EventModeChanged  = "permission:mode"
)

// SessionMode is a session's permission mode: its own, or the global default.
type SessionMode struct {
	SessionID string          `json:"sessionId"`
	Mode      permission.Mode `json:"mode"`
	// Own is false when the session follows the setting permissions.defaultMode.
	Own bool `json:"own"`
}

// PartObserver is what the chat loop's batch observer implements (chat.ApprovalObserver),
// reaching Check as the request's Observer: the approval service writes the session's approval-requested and approval-decided
// parts through it and so moves the session to awaiting-approval and back. data is a
// Request as JSON.
type PartObserver interface {
	ApprovalRequested(callID string, data json.RawMessage)
	ApprovalDecided(callID string, data json.RawMessage)
}

// Settings is the part of the settings service the authority reads (*settings.Service).
type Settings interface {
	String(ctx context.Context, key string) string
}

// Workspaces tells a session's working directory, where acceptEdits lets edits pass and
// relative paths start. Optional: without it sessions have no workspace.
type Workspaces interface {
	Workspace(ctx context.Context, sessionID string) (string, error)
}

// Servers tells an MCP server's identity — its command line or URL — by server id (the
// part of the namespace after "mcp:"). An "always allow" is bound to it and to the tool's
// schema. Optional: without it only the schema is bound.
type Servers interface {
	ServerIdentity(serverID string) (string, bool)
}

// ServerPlaces is what tells where an MCP server's tools read a relative path argument.
type ServerPlaces struct {
	// Remote: the server runs elsewhere (HTTP); its working directory is not known.
	Remote bool
	// Dir is the working directory of the server's process (absolute).
	Dir string
	// Roots are the directories Cairn offers it as MCP roots (absolute paths).
	Roots []string
	// Args are its command's arguments; a filesystem server names its directories there.
	Args []string
	// Home is the home directory its config gives it, where it expands `~`; "" = the
	// user's.
	Home string
}

// Places tells an MCP server's ServerPlaces by server id. Optional: without it, or for a
// server it does not know, relative paths of MCP tools are unresolved (they meet every
// deny and ask rule with a path, and no allow rule with one).
type Places interface {
	ServerPlaces(serverID string) (ServerPlaces, bool)
}

// ToolLookup finds a registered tool by wire name (*tools.Registry), for the rule tester.
type ToolLookup interface {
	Lookup(name string) (*tools.Entry, bool)
}

// Config wires a Service. DB and Bus are required; the rest is optional.
type Config struct {
	DB         *store.DB
	Bus        *events.Bus
	Settings   Settings
	Workspaces Workspaces
	Servers    Servers
	Places     Places
	Tools      ToolLookup
	// Classifier decides auto mode's calls that would ask; without it they ask the user.
	Classifier Classifier
	Log        *slog.Logger
	// PollInterval is how often a waiting call looks at its row for a decision made by
	// another process on the same database (default 1 s).
	PollInterval time.Duration
	// AuditKeep is how many audit entries are kept; older ones are dropped at start-up
	// (default 100 000).
	AuditKeep int
	// Home is the user's home directory for `~` in paths and rules (default: the OS's).
	Home string
}

// SettingDefaultMode is the setting that holds the default permission mode.
const SettingDefaultMode = "permissions.defaultMode"

// Classifier judges, in auto mode, a call that would ask (permission.Verdict.Classify).
// It answers an allow or an ask verdict with source classifier and never fails: an
// answer that is late, malformed or missing is an ask that says why.
type Classifier interface {
	Classify(ctx context.Context, c ClassifierCall) permission.Verdict
}

// ClassifierCall is what the classifier is shown of a call. The session's recent
// conversation it reads itself, by SessionID.
type ClassifierCall struct {
	SessionID string
	Tool      string
	Title     string
	Args      json.RawMessage
	Touches   permission.Targets
}
