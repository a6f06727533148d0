package tools

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/permission"
)

// Approval is a tool's standing approval choice, as the permission engine reads it.
type Approval = permission.Approval

// The three choices (permission.ApprovalDefault and its siblings).
const (
	ApprovalDefault = permission.ApprovalDefault // read-only tools pass, the rest asks
	ApprovalAsk     = permission.ApprovalAsk     // always ask
	ApprovalAllow   = permission.ApprovalAllow   // never ask
)

// Defer says whether a tool may be folded behind the meta tools (TOOL-4).
type Defer string

// The folding policies. The zero value means DeferAuto for MCP tools and DeferNever for
// every other namespace. A tool that needs approval folds like any other: tool_invoke
// runs it through the same permission step as a direct call.
const (
	DeferNever  Defer = "never"  // always sent inline
	DeferAlways Defer = "always" // always folded (reachable through tool_search)
	DeferAuto   Defer = "auto"   // folded when ShouldDefer says the pool is too costly
)

// DefaultMaxResultBytes is the result size above which the full result is written to
// disk and the model gets a preview, unless the entry sets its own limit.
const DefaultMaxResultBytes = 100 * 1024

// Where an entry comes from, for the Settings → Tools panel.
const (
	SourceBuiltin = "builtin"
	SourceMCP     = "mcp"
	SourceMeta    = "meta"
)

// Result is what a tool's Execute returns.
type Result struct {
	// Content is the text the model reads.
	Content string
	// Display is an optional structured result for the tool card (not sent to the model).
	Display json.RawMessage
	// IsError marks a failure the tool reports as content (MCP isError): the model still
	// reads Content, the call ends as a tool-error.
	IsError bool
	// Images are pictures the tool returned (MCP image content), whole. The pipeline
	// keeps them as files and says them in the content (Outcome.Images).
	Images []Image
}

// ExecuteFunc runs a tool. It must honour ctx (stop and timeouts) and may report
// progress any number of times from any goroutine until it returns.
type ExecuteFunc func(ctx context.Context, args json.RawMessage, progress func(Progress)) (Result, error)

// Entry is one tool in the registry. Register keeps its own copy; entries handed out by
// the registry must be treated as read-only.
type Entry struct {
	// Name is the wire name the model calls (see BuiltinName, MCPName, MetaName).
	Name string
	// Namespace groups tools: web, kb, file, sandbox, skill, location, mcp:<serverId>, meta.
	Namespace string
	// NamespaceLabel is a readable name for the namespace (the MCP server's name), used
	// by tool_search and the <DEFERRED_TOOLS> section. Optional.
	NamespaceLabel string
	// Title is the tool's name as people read it: an MCP tool's own name on its server.
	// Empty means the wire name without its namespace's prefix (web_search → search).
	Title string
	// Description is what the model reads about the tool.
	Description string
	// SearchHint holds extra keywords tool_search matches (not sent inline).
	SearchHint string
	// InputSchema is the JSON Schema of the arguments; empty means an object without
	// properties. Built-in schemas must compile; MCP schemas are accepted as they come.
	InputSchema json.RawMessage
	// OutputSchema optionally describes structured output; shown by tool_inspect.
	OutputSchema json.RawMessage
	// Defer is the folding policy (see Defer).
	Defer Defer
	// Applies says whether the tool takes part in a request; it must be pure. Nil means
	// always.
	Applies func(Scope) bool

	// Safe defaults: a tool is assumed to write, not destroy, and to need serial
	// execution unless it says otherwise.
	ReadOnly        bool
	Destructive     bool
	ConcurrencySafe bool
	// Approval is the tool's standing approval choice (an MCP tool's is the user's, from
	// Prefs; a built-in tool that always asks says ApprovalAsk); the permission step
	// reads it.
	Approval Approval

	// Aliases are older names the pipeline still resolves to this tool.
	Aliases []string
	// MaxResultBytes: results longer than this are spilled to disk; 0 means
	// DefaultMaxResultBytes, negative means never.
	MaxResultBytes int
	// Timeout bounds one call; 0 means none beyond the caller's context.
	Timeout time.Duration
	// Cancellable says Execute returns promptly once its context ends (an MCP call:
	// go-sdk gives up at once and tells the server). The pipeline then runs it on the
	// caller's goroutine; other tools run on a watched one that is abandoned when it does
	// not return in time.
	Cancellable bool
	// Instruction is the toolset's text for the system prompt, injected once per
	// namespace whatever number of its tools carry it.
	Instruction string
	// Instructions, when set, writes the toolset's text for one request instead of
	// Instruction: text that depends on the session or the conversation (the skills a
	// session has on, the most relevant first). It is asked once per namespace and
	// request, must be quick, and "" adds nothing.
	Instructions func(ctx context.Context, s Scope) string
	// ProgressKind labels progress events ("bash", "web", …); default "mcp" for MCP
	// tools and "generic" otherwise.
	ProgressKind string

	// ValidateInput checks arguments beyond the schema; its error is shown to the model.
	// CallFromContext gives the call. Optional.
	ValidateInput func(ctx context.Context, args json.RawMessage) error
	// Execute runs the tool; CallFromContext gives the call (session, scope). Required.
	Execute ExecuteFunc
	// Touches says what a call reaches, from the tool itself (Typed sets it); nil for MCP
	// tools, whose arguments the permission engine reads by guessing.
	Touches func(args json.RawMessage) (Touches, error)
	// Preview reads the change a call would make from its files, for the approval
	// dialog; CallFromContext gives the call's session. Nil: the dialog shows Touches'.
	Preview func(ctx context.Context, args json.RawMessage) ([]Edit, error)

	invalid error // why Typed could not build the entry
	typed   bool  // built by Typed
}

// Gated reports whether the tool always asks (its approval choice is ask): such a call
// never runs in parallel with others, and tool_inspect says it will ask. A tool with the
// default choice that is not read-only asks too, through the permission step's defaults.
func (e *Entry) Gated() bool { return e.Approval == ApprovalAsk }

// Asks reports whether the permission step's defaults ask before the tool runs: its
// choice is ask, or it is the default and the tool is not read-only (rules and the mode
// may still decide otherwise). Settings → Tools and tool_inspect say it.
func (e *Entry) Asks() bool {
	return e.Approval == ApprovalAsk || e.Approval == ApprovalDefault && !e.ReadOnly
}

// Typed reports whether the entry was built by Typed: its schema is generated and it says
// itself what its calls touch (Touches; nil = nothing).
func (e *Entry) Typed() bool { return e.typed }

// Source tells where the entry comes from: SourceMCP, SourceMeta or SourceBuiltin.
func (e *Entry) Source() string {
	switch {
	case IsMCPNamespace(e.Namespace):
		return SourceMCP
	case e.Namespace == NamespaceMeta:
		return SourceMeta
	default:
		return SourceBuiltin
	}
}

// Ref is how a window names the tool (ToolRef).
func (e *Entry) Ref() ToolRef {
	title := e.Title
	if title == "" {
		title = strings.TrimPrefix(e.Name, e.Namespace+"_")
	}
	ref := ToolRef{Namespace: e.Namespace, Title: title}
	if IsMCPNamespace(e.Namespace) {
		ref.Server = e.NamespaceLabel
	}
	return ref
}

// ToolRef names a tool for people, so that a window never reads a wire name: its
// namespace (whose toolset gives the icon), the MCP server's name, and the tool's title.
type ToolRef struct {
	Namespace string `json:"namespace,omitempty"`
	Server    string `json:"server,omitempty"`
	Title     string `json:"title,omitempty"`
}

func (e *Entry) maxResultBytes() int {
	if e.MaxResultBytes == 0 {
		return DefaultMaxResultBytes
	}
	return e.MaxResultBytes
}

func (e *Entry) progressKind() string {
	switch {
	case e.ProgressKind != "":
		return e.ProgressKind
	case IsMCPNamespace(e.Namespace):
		return "mcp"
	default:
		return "generic"
	}
}

// Info describes a registered tool for the Settings → Tools panel and `--json` listings.
type Info struct {
	Name            string   `json:"name"`
	Title           string   `json:"title"`
	Namespace       string   `json:"namespace"`
	NamespaceLabel  string   `json:"namespaceLabel,omitempty"`
	Description     string   `json:"description"`
	Source          string   `json:"source"`
	Defer           Defer    `json:"defer"`
	ReadOnly        bool     `json:"readOnly"`
	Destructive     bool     `json:"destructive"`
	ConcurrencySafe bool     `json:"concurrencySafe"`
	NeedsApproval   bool     `json:"needsApproval"`
	Aliases         []string `json:"aliases,omitempty"`
	Tokens          int      `json:"tokens"` // prompt tokens of its definition
}

// WhenToolset is an Applies predicate for a toolset the session must have enabled.
func WhenToolset(name string) func(Scope) bool {
	return func(s Scope) bool { return s.HasToolset(name) }
}

type callKey struct{}

// CallFromContext returns the call a tool's Execute or ValidateInput runs for, so a tool
// can find its session (workspace, attached files) without a wider signature.
func CallFromContext(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}

func withCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// WithCall is ctx carrying c, as the pipeline hands it to a tool's Execute: for code that
// runs a tool's work outside the pipeline (tests) and must look like that call.
func WithCall(ctx context.Context, c Call) context.Context { return withCall(ctx, c) }
