// Package toolstest has fake tools and a recording observer for tests of packages that
// use the tool system (chat, approval, mcp): echo, a slow tool that honours ctx, a
// failing tool, a huge-output tool and MCP-like tool sets of any size.
package toolstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cairn-app/cairn/backend/tools"
)

// Namespace is where the fake tools live unless a test moves them.
const Namespace = "test"

// ChatScope is a scope in which every fake tool applies: a chat session with a model
// that supports tools and a large context window (so nothing is folded by size alone).
func ChatScope(sessionID string) tools.Scope {
	return tools.Scope{
		SessionID: sessionID, SessionKind: "chat",
		Model:    tools.ModelCaps{SupportsTools: true, ContextWindow: 1_000_000},
		Toolsets: []string{"web", "kb", "file", "mcp", Namespace},
	}
}

// Call builds a call of the scope's session.
func Call(id, name, args string, scope tools.Scope) tools.Call {
	return tools.Call{ID: id, Name: name, Arguments: args, SessionID: scope.SessionID, MessageID: "m-" + id, Scope: scope}
}

// echoInput is Echo's input.
type echoInput struct {
	Text string `json:"text" jsonschema:"Text to echo"`
}

// Echo returns {"text": …} as its content. Read-only and concurrency-safe; a typed tool
// like every built-in one, touching nothing.
func Echo(name string) tools.Entry {
	return tools.Typed(tools.TypedTool[echoInput]{
		Name: name, Namespace: Namespace, Description: "Echo the text back.",
		ReadOnly: true, ConcurrencySafe: true,
		Run: func(_ context.Context, in echoInput, _ func(tools.Progress)) (tools.Result, error) {
			return tools.Result{Content: in.Text}, nil
		},
	})
}

// Failing always returns err (a plain error or an *apperr.Error).
func Failing(name string, err error) tools.Entry {
	return tools.Entry{
		Name: name, Namespace: Namespace, Description: "Always fails.",
		Execute: func(context.Context, json.RawMessage, func(tools.Progress)) (tools.Result, error) {
			return tools.Result{}, err
		},
	}
}

// Huge returns size bytes of numbered lines.
func Huge(name string, size int) tools.Entry {
	return tools.Entry{
		Name: name, Namespace: Namespace, Description: "Returns a very large result.",
		ReadOnly: true,
		Execute: func(context.Context, json.RawMessage, func(tools.Progress)) (tools.Result, error) {
			return tools.Result{Content: HugeText(size)}, nil
		},
	}
}

// HugeText is the content Huge returns: numbered lines, exactly size bytes.
func HugeText(size int) string {
	var b strings.Builder
	b.Grow(size + 32)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "line %06d of a very large tool result\n", i)
	}
	return b.String()[:size]
}

// Slow is a tool that blocks until released or until its ctx ends. Started receives one
// value per call as it begins, after it reported one progress event.
type Slow struct {
	Started chan string // call ids, buffered
	release chan struct{}
	once    sync.Once
}

// NewSlow returns a slow tool's controls; Entry gives the tool itself.
func NewSlow() *Slow {
	return &Slow{Started: make(chan string, 64), release: make(chan struct{})}
}

// Release lets every waiting and future call finish.
func (s *Slow) Release() { s.once.Do(func() { close(s.release) }) }

// Entry is the slow tool under the given name.
func (s *Slow) Entry(name string, concurrencySafe bool) tools.Entry {
	return tools.Entry{
		Name: name, Namespace: Namespace, Description: "Waits until released.",
		ConcurrencySafe: concurrencySafe,
		Execute: func(ctx context.Context, _ json.RawMessage, progress func(tools.Progress)) (tools.Result, error) {
			progress(tools.Progress{Message: "waiting", Progress: 0, Total: 1})
			id := ""
			if c, ok := tools.CallFromContext(ctx); ok {
				id = c.ID
			}
			s.Started <- id
			select {
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			case <-s.release:
				return tools.Result{Content: "released " + id}, nil
			}
		},
	}
}

// MCPLike returns n tools shaped like a real MCP server's (GitHub-, Slack- or
// filesystem-style names, a description of a sentence or two, 3–6 described parameters),
// in namespace mcp:<serverID>, deferred "auto". Deterministic for a given n.
func MCPLike(serverID, serverName string, n int) []tools.Entry {
	verbs := []string{"create", "get", "list", "update", "delete", "search", "merge", "close", "comment", "archive"}
	objects := []string{"issue", "pull request", "repository", "branch", "file", "release", "workflow run", "label", "milestone", "review"}
	out := make([]tools.Entry, 0, n)
	for i := 0; i < n; i++ {
		verb, obj := verbs[i%len(verbs)], objects[(i/len(verbs))%len(objects)]
		tool := fmt.Sprintf("%s_%s", verb, strings.ReplaceAll(obj, " ", "_"))
		if i >= len(verbs)*len(objects) {
			tool = fmt.Sprintf("%s_%d", tool, i)
		}
		props := map[string]any{
			"owner": map[string]any{"type": "string", "description": "Account that owns the repository (user or organization)"},
			"repo":  map[string]any{"type": "string", "description": "Name of the repository, without the owner"},
		}
		required := []string{"owner", "repo"}
		switch verb {
		case "create", "update", "comment":
			props["title"] = map[string]any{"type": "string", "description": fmt.Sprintf("Title of the %s", obj)}
			props["body"] = map[string]any{"type": "string", "description": fmt.Sprintf("Body of the %s in GitHub-flavoured Markdown", obj)}
			props["labels"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Labels to apply"}
			required = append(required, "title")
		case "list", "search":
			props["query"] = map[string]any{"type": "string", "description": "Search terms in the provider's query syntax"}
			props["state"] = map[string]any{"type": "string", "enum": []string{"open", "closed", "all"}, "description": "Filter by state"}
			props["per_page"] = map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "description": "Results per page (default 30)"}
			props["page"] = map[string]any{"type": "integer", "minimum": 1, "description": "Page number of the results"}
		default:
			props["number"] = map[string]any{"type": "integer", "description": fmt.Sprintf("Number that identifies the %s", obj)}
			required = append(required, "number")
		}
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
		id := serverID
		out = append(out, tools.Entry{
			Name:           tools.MCPName(id, serverName, tool),
			Namespace:      tools.MCPNamespace(id),
			NamespaceLabel: serverName,
			Description: fmt.Sprintf("%s a %s in a %s repository. Returns the %s as JSON with its id, URL and metadata; "+
				"requires a token with access to the repository.", strings.ToUpper(verb[:1])+verb[1:], obj, serverName, obj),
			InputSchema:     schema,
			Defer:           tools.DeferAuto,
			ReadOnly:        verb == "get" || verb == "list" || verb == "search",
			ConcurrencySafe: verb == "get" || verb == "list" || verb == "search",
			Destructive:     verb == "delete",
			Execute: func(_ context.Context, args json.RawMessage, progress func(tools.Progress)) (tools.Result, error) {
				progress(tools.Progress{Message: "calling " + tool})
				return tools.Result{Content: fmt.Sprintf(`{"tool":%q,"args":%s}`, tool, args)}, nil
			},
		})
	}
	return out
}

// Event is one observer notification, in the order the pipeline made it.
type Event struct {
	Kind     string // "started" | "progress" | "finished"
	Call     tools.Call
	Progress tools.Progress
	Outcome  tools.Outcome
}

// Recorder is a tools.Observer that records every notification; safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// CallStarted records the start of a call.
func (r *Recorder) CallStarted(c tools.Call) { r.add(Event{Kind: "started", Call: c}) }

// CallProgress records a progress report.
func (r *Recorder) CallProgress(p tools.Progress) { r.add(Event{Kind: "progress", Progress: p}) }

// CallFinished records the end of a call.
func (r *Recorder) CallFinished(o tools.Outcome) { r.add(Event{Kind: "finished", Outcome: o}) }

func (r *Recorder) add(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// Events returns a copy of what was recorded so far.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Count returns how many events of a kind were recorded.
func (r *Recorder) Count(kind string) int {
	n := 0
	for _, e := range r.Events() {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// ErrBoom is a plain error for failing tools.
var ErrBoom = errors.New("boom")
