package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

func noop(context.Context, json.RawMessage, func(tools.Progress)) (tools.Result, error) {
	return tools.Result{Content: "ok"}, nil
}

func builtin(ns, verb string) tools.Entry {
	return tools.Entry{Name: tools.BuiltinName(ns, verb), Namespace: ns, Description: verb + " things", Execute: noop}
}

func names(defs []tools.Definition) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}

func mustRegister(t *testing.T, r *tools.Registry, es ...tools.Entry) {
	t.Helper()
	if err := r.Register(es...); err != nil {
		t.Fatal(err)
	}
}

func TestRegisterValidates(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*tools.Entry)
		want   string // substring of the error, "" = accepted
	}{
		{"valid", func(*tools.Entry) {}, ""},
		{"bad wire name", func(e *tools.Entry) { e.Name = "web search" }, "wire name"},
		{"too long", func(e *tools.Entry) { e.Name = strings.Repeat("a", 64) }, "wire name"},
		{"reserved meta name", func(e *tools.Entry) { e.Name = "tool_search" }, "reserved"},
		{"meta namespace", func(e *tools.Entry) { e.Namespace = "meta" }, "meta namespace"},
		{"no namespace", func(e *tools.Entry) { e.Namespace = "" }, "namespace"},
		{"no execute", func(e *tools.Entry) { e.Execute = nil }, "Execute"},
		{"built-in without description", func(e *tools.Entry) { e.Description = "" }, "description"},
		{"MCP without description is fine", func(e *tools.Entry) { e.Namespace = "mcp:x"; e.Description = "" }, ""},
		{"bad defer", func(e *tools.Entry) { e.Defer = "sometimes" }, "defer"},
		{"built-in schema must compile", func(e *tools.Entry) { e.InputSchema = json.RawMessage(`{"type":"string"}`) }, "object"},
		{"MCP odd schema accepted", func(e *tools.Entry) {
			e.Namespace = "mcp:x"
			e.InputSchema = json.RawMessage(`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`)
		}, ""},
		{"built-in bad output schema", func(e *tools.Entry) { e.OutputSchema = json.RawMessage(`{`) }, "output schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := builtin("web", "search")
			tt.mutate(&e)
			err := tools.NewRegistry().Register(e)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if !apperr.Is(err, apperr.InvalidArgument) {
				t.Fatalf("err is not an invalid_argument apperr: %#v", err)
			}
		})
	}
}

func TestRegisterIsAllOrNothing(t *testing.T) {
	r := tools.NewRegistry()
	bad := builtin("web", "fetch")
	bad.Execute = nil
	if err := r.Register(builtin("web", "search"), bad); err == nil {
		t.Fatal("accepted an invalid batch")
	}
	if n := len(r.List()); n != 0 {
		t.Fatalf("a failed Register left %d tools", n)
	}
}

// TestDeferDefaults: MCP tools fold by default, built-ins never, and a tool that needs
// approval keeps its own policy (tool_invoke asks for it as a direct call does).
func TestDeferDefaults(t *testing.T) {
	r := tools.NewRegistry()
	gated := builtin("sandbox", "bash")
	gated.Defer = tools.DeferAlways
	gated.Approval = tools.ApprovalAsk
	gatedMCP := tools.Entry{Name: "send", Namespace: "mcp:mail", Execute: noop, Approval: tools.ApprovalAsk}
	mustRegister(t, r, builtin("web", "search"), tools.Entry{Name: "auto_by_default", Namespace: "mcp:x", Execute: noop}, gated, gatedMCP)
	want := map[string]tools.Defer{"web_search": tools.DeferNever, "auto_by_default": tools.DeferAuto, "sandbox_bash": tools.DeferAlways, "send": tools.DeferAuto}
	for _, info := range r.List() {
		if info.Defer != want[info.Name] {
			t.Errorf("%s: defer %q, want %q", info.Name, info.Defer, want[info.Name])
		}
	}
}

func TestReplaceNamespaceIsIdempotentAndAtomic(t *testing.T) {
	r := tools.NewRegistry()
	mustRegister(t, r, builtin("web", "search"))
	first := toolstest.MCPLike("srv", "GitHub", 10)
	if err := r.ReplaceNamespace("mcp:srv", first); err != nil {
		t.Fatal(err)
	}
	before := r.List()
	if err := r.ReplaceNamespace("mcp:srv", toolstest.MCPLike("srv", "GitHub", 10)); err != nil {
		t.Fatal(err)
	}
	if after := r.List(); len(after) != len(before) || len(after) != 11 {
		t.Fatalf("sync twice: %d then %d tools, want 11", len(before), len(after))
	}
	// A smaller catalog drops stale tools.
	if err := r.ReplaceNamespace("mcp:srv", first[:3]); err != nil {
		t.Fatal(err)
	}
	if n := len(r.List()); n != 4 {
		t.Fatalf("after shrinking: %d tools, want 4", n)
	}
	// One bad entry: nothing changes.
	bad := first[4]
	bad.Execute = nil
	if err := r.ReplaceNamespace("mcp:srv", append(first[:5:5], bad)); err == nil {
		t.Fatal("accepted a bad entry")
	}
	if n := len(r.List()); n != 4 {
		t.Fatalf("failed sync changed the registry: %d tools", n)
	}
	// Entries of another namespace are refused; empty namespace fields are filled in.
	other := builtin("web", "fetch")
	if err := r.ReplaceNamespace("mcp:srv", []tools.Entry{other}); err == nil {
		t.Fatal("accepted an entry of another namespace")
	}
	if err := r.ReplaceNamespace("mcp:new", []tools.Entry{{Name: "x", Execute: noop}, {Name: "x", Execute: noop}}); err == nil {
		t.Fatal("accepted a duplicate name")
	}
	if err := r.ReplaceNamespace("mcp:new", []tools.Entry{{Name: "x", Execute: noop}}); err != nil {
		t.Fatal(err)
	}
	if e, ok := r.Lookup("x"); !ok || e.Namespace != "mcp:new" {
		t.Fatalf("namespace not filled in: %+v", e)
	}
	// An empty list removes the namespace.
	v := r.Version()
	if err := r.ReplaceNamespace("mcp:srv", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(r.List()); n != 2 || r.Version() <= v {
		t.Fatalf("after removal: %d tools, version %d→%d", n, v, r.Version())
	}
	r.Unregister("x", "not-there")
	if _, ok := r.Lookup("x"); ok {
		t.Fatal("Unregister left the tool")
	}
}

func TestLookupAndList(t *testing.T) {
	r := tools.NewRegistry()
	e := builtin("web", "fetch")
	e.Aliases = []string{"parse_link", "", "web_fetch"}
	mustRegister(t, r, e)
	got, ok := r.Lookup("parse_link")
	if !ok || got.Name != "web_fetch" {
		t.Fatalf("alias lookup: %v %v", got, ok)
	}
	list := r.List()
	if len(list) != 1 || !slices.Equal(list[0].Aliases, []string{"parse_link"}) || list[0].Source != tools.SourceBuiltin || list[0].Tokens <= 0 {
		t.Fatalf("List = %+v", list)
	}
}

func TestSelectActive(t *testing.T) {
	scope := toolstest.ChatScope("s1")
	webOnly := func(name string) tools.Entry {
		e := builtin("web", name)
		e.Applies = tools.WhenToolset("web")
		e.Instruction = "Use the web tools for current events."
		return e
	}
	kb := builtin("kb", "search")
	kb.Instruction = "Search the knowledge base first."
	sandbox := builtin("sandbox", "bash")
	sandbox.Applies = func(s tools.Scope) bool { return s.SessionKind == "task" }
	panicky := builtin("file", "read")
	panicky.Applies = func(tools.Scope) bool { panic("bad predicate") }
	dupBuiltin := builtin("web", "clash")
	dupBuiltin.Description = "the built-in one"
	dupMCP := tools.Entry{Name: "web_clash", Namespace: "mcp:a", Description: "the MCP one", Execute: noop}
	onlyMCP := tools.Entry{Name: "web_other", Namespace: "mcp:a", Description: "MCP, no built-in twin", Execute: noop}
	hidden := builtin("location", "locate")

	r := tools.NewRegistry()
	mustRegister(t, r, webOnly("search"), webOnly("fetch"), kb, sandbox, panicky, dupMCP, dupBuiltin, onlyMCP, hidden)

	scope.Disabled = map[string]bool{"location_locate": true}
	sel := r.SelectActive(context.Background(), scope)
	wantNames := []string{"kb_search", "web_clash", "web_fetch", "web_other", "web_search"}
	if got := names(sel.Tools); !slices.Equal(got, wantNames) {
		t.Fatalf("tools = %v, want %v", got, wantNames)
	}
	for _, d := range sel.Tools {
		if d.Name == "web_clash" && d.Description != "the built-in one" {
			t.Fatalf("dedupe kept %q, want the built-in", d.Description)
		}
	}
	wantInstr := "Search the knowledge base first.\n\nUse the web tools for current events."
	if sel.Instructions != wantInstr {
		t.Fatalf("instructions = %q, want %q (once per namespace, sorted by namespace)", sel.Instructions, wantInstr)
	}
	if len(sel.Deferred) != 0 || sel.ToolTokens <= 0 {
		t.Fatalf("deferred %v, tokens %d", sel.Deferred, sel.ToolTokens)
	}

	// The built-in twin disabled: the MCP tool of that name takes its place.
	scope.Disabled = map[string]bool{"web_clash": true}
	for _, d := range r.SelectActive(context.Background(), scope).Tools {
		if d.Name == "web_clash" {
			t.Fatalf("a disabled name must disappear from every source, got %q", d.Description)
		}
	}
	// A task session gets the sandbox; no web toolset drops the web tools.
	task := toolstest.ChatScope("s2")
	task.SessionKind = "task"
	task.Toolsets = nil
	if got := names(r.SelectActive(context.Background(), task).Tools); !slices.Equal(got, []string{"kb_search", "location_locate", "sandbox_bash", "web_clash", "web_other"}) {
		t.Fatalf("task tools = %v", got)
	}
	// A model without tool support gets nothing.
	scope.Model.SupportsTools = false
	if sel := r.SelectActive(context.Background(), scope); len(sel.Tools) != 0 || sel.Instructions != "" {
		t.Fatalf("no-tools model got %v", names(sel.Tools))
	}
}

func TestSelectActiveFolds(t *testing.T) {
	r := tools.NewRegistry()
	web := builtin("web", "search")
	web.Instruction = "Web instruction."
	gated := tools.Entry{Name: "send_mail", Namespace: "mcp:mail", NamespaceLabel: "Mail", Description: "Send a mail", Execute: noop, Approval: tools.ApprovalAsk}
	mcp := toolstest.MCPLike("gh", "GitHub", 100)
	mcp[0].Instruction = "GitHub server instructions."
	mustRegister(t, r, web, gated)
	if err := r.ReplaceNamespace("mcp:gh", mcp); err != nil {
		t.Fatal(err)
	}
	scope := toolstest.ChatScope("s1")
	scope.Model.ContextWindow = 128_000

	sel := r.SelectActive(context.Background(), scope)
	want := []string{"tool_inspect", "tool_invoke", "tool_search", "web_search"}
	if got := names(sel.Tools); !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	if len(sel.Deferred) != 101 || !slices.Contains(sel.Deferred, "send_mail") {
		t.Fatalf("deferred %d tools, want 100 and the approval-gated one", len(sel.Deferred))
	}
	if !strings.HasPrefix(sel.Instructions, "Web instruction.\n\n<DEFERRED_TOOLS>") ||
		!strings.Contains(sel.Instructions, "- mcp:gh (GitHub): 100 tools") ||
		strings.Contains(sel.Instructions, "GitHub server instructions.") {
		t.Fatalf("instructions:\n%s", sel.Instructions)
	}

	// A window large enough that 100 tools are under 10%: nothing folded, no meta tools.
	scope.Model.ContextWindow = 10_000_000
	sel = r.SelectActive(context.Background(), scope)
	if len(sel.Deferred) != 0 || len(sel.Tools) != 102 || slices.Contains(names(sel.Tools), "tool_search") {
		t.Fatalf("huge window: %d tools, %d deferred", len(sel.Tools), len(sel.Deferred))
	}
	if !slices.IsSorted(names(sel.Tools)) {
		t.Fatal("tools not sorted by wire name")
	}
}

// TestRegistryConcurrentUse runs registration, sync and selection at once (for -race).
func TestRegistryConcurrentUse(t *testing.T) {
	r := tools.NewRegistry()
	scope := toolstest.ChatScope("s")
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				ns := fmt.Sprintf("srv%d", i)
				_ = r.ReplaceNamespace("mcp:"+ns, toolstest.MCPLike(ns, "S", j%5+1))
			}
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				sel := r.SelectActive(context.Background(), scope)
				if !slices.IsSorted(names(sel.Tools)) {
					t.Error("unsorted selection")
					return
				}
				_ = r.List()
			}
		}()
	}
	wg.Wait()
}

// TestReplaceNamespaces: several namespaces replaced with one rebuild; a namespace with a
// bad entry keeps what it held and says so, the others are replaced.
func TestReplaceNamespaces(t *testing.T) {
	r := tools.NewRegistry()
	mustRegister(t, r, builtin("web", "search"))
	if err := r.ReplaceNamespace("mcp:old", toolstest.MCPLike("old", "Old", 2)); err != nil {
		t.Fatal(err)
	}
	bad := toolstest.MCPLike("b", "B", 2)
	bad[1].Execute = nil
	v := r.Version()
	errs := r.ReplaceNamespaces(map[string][]tools.Entry{
		"mcp:a": toolstest.MCPLike("a", "A", 3), "mcp:b": bad, "mcp:old": nil,
	})
	if len(errs) != 1 || errs["mcp:b"] == nil {
		t.Fatalf("errors %v", errs)
	}
	if r.Version() != v+1 {
		t.Fatalf("%d rebuilds, want 1", r.Version()-v)
	}
	if n := len(r.List()); n != 4 { // web_search and A's three
		t.Fatalf("%d tools, want 4: %+v", n, r.List())
	}
}

// TestSelectActiveWritesInstructionsPerRequest: a toolset whose text depends on the
// request is asked once per request with that request's scope; one that writes nothing
// or panics adds nothing, and the fixed instructions keep their order.
func TestSelectActiveWritesInstructionsPerRequest(t *testing.T) {
	r := tools.NewRegistry()
	asked := 0
	load, read := builtin("kb", "load"), builtin("kb", "read")
	dyn := func(_ context.Context, s tools.Scope) string {
		asked++
		return "About: " + s.Conversation
	}
	load.Instructions, read.Instructions = dyn, dyn
	web := builtin("web", "search")
	web.Instruction = "Web instruction."
	boom := builtin("file", "read")
	boom.Instructions = func(context.Context, tools.Scope) string { panic("no") }
	mustRegister(t, r, load, read, web, boom)
	scope := toolstest.ChatScope("s1")
	scope.Conversation = "tomatoes"
	sel := r.SelectActive(context.Background(), scope)
	if sel.Instructions != "About: tomatoes\n\nWeb instruction." || asked != 1 {
		t.Fatalf("instructions %q, asked %d times", sel.Instructions, asked)
	}
	scope.Conversation = "aphids"
	if sel := r.SelectActive(context.Background(), scope); sel.Instructions != "About: aphids\n\nWeb instruction." {
		t.Fatalf("second request: %q", sel.Instructions)
	}
}
