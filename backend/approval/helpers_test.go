package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// fakeSettings serves permissions.defaultMode.
type fakeSettings struct {
	mu sync.Mutex
	m  map[string]string
}

func (f *fakeSettings) String(_ context.Context, key string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[key]
}

func (f *fakeSettings) set(key, v string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[key] = v
}

// fakeServers serves MCP server identities.
type fakeServers struct {
	mu sync.Mutex
	m  map[string]string
}

func (f *fakeServers) ServerIdentity(id string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.m[id]
	return v, ok
}

func (f *fakeServers) set(id, v string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[id] = v
}

// counting is a tool that counts its runs; entry builds an MCP tool, whose arguments
// Cairn reads by their names.
type counting struct{ n atomic.Int64 }

func (c *counting) entry(name, ns string, schema string, readOnly, concurrencySafe bool) tools.Entry {
	return tools.Entry{
		Name: name, Namespace: ns, Description: "Counts its runs.", InputSchema: json.RawMessage(schema),
		ReadOnly: readOnly, ConcurrencySafe: concurrencySafe,
		Execute: func(context.Context, json.RawMessage, func(tools.Progress)) (tools.Result, error) {
			c.n.Add(1)
			return tools.Result{Content: "ran"}, nil
		},
	}
}

// The inputs of the built-in test tools; what they touch they say themselves.
type (
	pathInput struct {
		Path string `json:"path,omitempty"`
	}
	commandInput struct {
		Command string `json:"command"`
	}
)

func (c *counting) run() (tools.Result, error) {
	c.n.Add(1)
	return tools.Result{Content: "ran"}, nil
}

// pathTool is a built-in tool reading (or, with edits, writing) the file at "path".
func (c *counting) pathTool(name, ns string, edits, concurrencySafe bool) tools.Entry {
	return tools.Typed(tools.TypedTool[pathInput]{
		Name: name, Namespace: ns, Description: "Counts its runs.", ConcurrencySafe: concurrencySafe,
		Touches: func(in pathInput) tools.Touches {
			if in.Path == "" {
				return tools.Touches{}
			}
			if edits {
				return tools.Touches{Edits: []tools.Edit{{Path: in.Path}}}
			}
			return tools.Touches{Paths: []string{in.Path}}
		},
		Preview: func(ctx context.Context, in pathInput) ([]tools.Edit, error) {
			call, _ := tools.CallFromContext(ctx)
			if !edits || in.Path == "broken" {
				return nil, errors.New("no preview")
			}
			return []tools.Edit{{Path: in.Path, Diff: "+preview in " + call.SessionID}}, nil
		},
		Run: func(context.Context, pathInput, func(tools.Progress)) (tools.Result, error) { return c.run() },
	})
}

// commandTool is a built-in shell tool running "command".
func (c *counting) commandTool(name, ns string) tools.Entry {
	return tools.Typed(tools.TypedTool[commandInput]{
		Name: name, Namespace: ns, Description: "Counts its runs.",
		Touches: func(in commandInput) tools.Touches { return tools.Touches{Commands: []string{in.Command}} },
		Run:     func(context.Context, commandInput, func(tools.Progress)) (tools.Result, error) { return c.run() },
	})
}

const (
	pathSchema = `{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}`
)

// env is a database, a bus, an authority and a pipeline that uses it.
type env struct {
	t        *testing.T
	ctx      context.Context
	path     string
	db       *store.DB
	bus      *events.Bus
	svc      *approval.Service
	reg      *tools.Registry
	pipe     *tools.Pipeline
	settings *fakeSettings
	servers  *fakeServers
	places   *fakePlaces
	write    *counting // test_write: not read-only, serial
	par      *counting // test_par_a / test_par_b: not read-only, concurrency-safe
	bash     *counting // sandbox_bash
	// auto: the classifier and the workspace of auto-mode tests (newAutoEnv).
	classifier approval.Classifier
	workspace  string
}

func newEnv(t *testing.T) *env { t.Helper(); return newEnvWith(t, nil, "") }

// newEnvWith is newEnv with a classifier and a workspace for every session.
func newEnvWith(t *testing.T, c approval.Classifier, workspace string) *env {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.OpenPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &env{t: t, ctx: ctx, path: path, db: db, bus: events.NewBus(),
		settings: &fakeSettings{m: map[string]string{approval.SettingDefaultMode: "default"}},
		servers:  &fakeServers{m: map[string]string{}}, places: &fakePlaces{m: map[string]approval.ServerPlaces{}},
		write: &counting{}, par: &counting{}, bash: &counting{}, classifier: c, workspace: workspace}
	for _, id := range []string{"s1", "s2"} {
		e.session(id)
	}
	e.reg = tools.NewRegistry()
	e.svc = e.open(db, e.bus)
	if err := e.reg.Register(
		toolstest.Echo("test_echo"),
		e.write.pathTool("test_write", "test", true, false),
		e.par.pathTool("test_par_a", "test", false, true),
		e.par.pathTool("test_par_b", "test", false, true),
		e.bash.commandTool("sandbox_bash", "sandbox"),
	); err != nil {
		t.Fatal(err)
	}
	e.pipe = tools.NewPipeline(e.reg, tools.Options{Permission: e.svc, DataDir: t.TempDir()})
	return e
}

// open starts an authority on a database (a second one simulates another process).
func (e *env) open(db *store.DB, bus *events.Bus) *approval.Service {
	e.t.Helper()
	cfg := approval.Config{DB: db, Bus: bus, Settings: e.settings, Servers: e.servers, Tools: e.reg, Places: e.places,
		PollInterval: 20 * time.Millisecond, Home: e.t.TempDir(), Classifier: e.classifier}
	if e.workspace != "" {
		cfg.Workspaces = fixedWorkspace(e.workspace)
	}
	svc, err := approval.New(e.ctx, cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { svc.Close() })
	return svc
}

func (e *env) session(id string) {
	e.t.Helper()
	if _, err := e.db.ExecContext(e.ctx, "INSERT INTO sessions (id, kind, title, created_at, updated_at) VALUES (?, 'chat', ?, 0, 0)",
		id, "Session "+id); err != nil {
		e.t.Fatal(err)
	}
}

// partObserver is the chat loop's batch observer as far as approval cares.
type partObserver struct {
	toolstest.Recorder
	mu        sync.Mutex
	requested []approval.Request
	decided   []approval.Request
}

func (o *partObserver) ApprovalRequested(_ string, data json.RawMessage) {
	var r approval.Request
	_ = json.Unmarshal(data, &r)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.requested = append(o.requested, r)
}

func (o *partObserver) ApprovalDecided(_ string, data json.RawMessage) {
	var r approval.Request
	_ = json.Unmarshal(data, &r)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.decided = append(o.decided, r)
}

func (o *partObserver) parts() ([]approval.Request, []approval.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]approval.Request(nil), o.requested...), append([]approval.Request(nil), o.decided...)
}

// run starts a batch in the background through the pipeline; the outcomes arrive on
// the returned channel.
func (e *env) run(ctx context.Context, obs *partObserver, calls ...tools.Call) <-chan []tools.Outcome {
	done := make(chan []tools.Outcome, 1)
	var o tools.Observer
	if obs != nil {
		o = obs
	}
	go func() { done <- e.pipe.RunBatch(ctx, calls, o) }()
	return done
}

func call(id, name, args, session string) tools.Call {
	return toolstest.Call(id, name, args, toolstest.ChatScope(session))
}

// waitFor fails the test when nothing arrives in time; it guards against a hang and is
// not a synchronisation (the value arrives as soon as it is sent).
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// nextEvent returns the next approvals event of a type.
func nextEvent(t *testing.T, sub *events.Subscription, typ string) approval.Request {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-sub.C:
			if !ok {
				t.Fatalf("bus closed while waiting for %s", typ)
			}
			if ev.Topic != events.TopicApprovals || ev.Type != typ {
				continue
			}
			var r approval.Request
			if err := json.Unmarshal(ev.Data, &r); err != nil {
				t.Fatal(err)
			}
			return r
		case <-timeout:
			t.Fatalf("timed out waiting for %s", typ)
		}
	}
}

func (e *env) auditDecisions(q approval.AuditQuery) []string {
	e.t.Helper()
	page, err := e.svc.ListAudit(e.ctx, q, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for i := len(page.Entries) - 1; i >= 0; i-- {
		out = append(out, page.Entries[i].Tool+":"+page.Entries[i].Decision)
	}
	return out
}

func (e *env) status(id string) approval.Status {
	e.t.Helper()
	r, err := e.svc.Get(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return r.Status
}

// fixedWorkspace gives every session the same workspace.
type fixedWorkspace string

func (w fixedWorkspace) Workspace(context.Context, string) (string, error) { return string(w), nil }
