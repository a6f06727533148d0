package tools_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// foldedSetup registers 100 GitHub-like and 20 Slack-like MCP tools, a built-in web tool
// and an approval-gated MCP tool, with a window small enough that the MCP tools fold (the
// gated one with them).
func foldedSetup(t *testing.T, opt tools.Options) (*tools.Pipeline, tools.Scope, []tools.Entry) {
	t.Helper()
	r := tools.NewRegistry()
	gh := toolstest.MCPLike("gh-1", "GitHub", 100)
	if err := r.ReplaceNamespace("mcp:gh-1", gh); err != nil {
		t.Fatal(err)
	}
	if err := r.ReplaceNamespace("mcp:sl-1", toolstest.MCPLike("sl-1", "Slack", 20)); err != nil {
		t.Fatal(err)
	}
	gated := toolstest.Echo(tools.MCPName("mail-1", "Mail", "send"))
	gated.Namespace, gated.NamespaceLabel, gated.Approval, gated.Defer = "mcp:mail-1", "Mail", tools.ApprovalAsk, tools.DeferAuto
	mustRegister(t, r, builtin("web", "search"), gated)
	if opt.DataDir == "" {
		opt.DataDir = t.TempDir()
	}
	p := tools.NewPipeline(r, opt)
	scope := toolstest.ChatScope("s1")
	scope.Model.ContextWindow = 128_000
	sel, err := p.Select(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Deferred) != 121 || !slices.Contains(sel.Deferred, gated.Name) {
		t.Fatalf("setup folded %d tools (the gated one: %v), want 121 with it", len(sel.Deferred), slices.Contains(sel.Deferred, gated.Name))
	}
	return p, scope, gh
}

func TestToolSearch(t *testing.T) {
	p, scope, gh := foldedSetup(t, tools.Options{})
	tests := []struct {
		name, args     string
		contains       []string
		lacks          []string
		wantInspected  string
		wantNotInspect string
	}{
		{"keyword across namespaces, grouped", `{"query":"create issue"}`,
			[]string{"## mcp:gh-1 (GitHub)", gh[0].Name, "tool_inspect"}, []string{"web_search", "parameters:"}, "", gh[0].Name},
		{"namespace by label", `{"namespace":"Slack","limit":3}`,
			[]string{"3 of 20 folded tools", "## mcp:sl-1 (Slack)"}, []string{"## mcp:gh-1"}, "", ""},
		{"namespace by id", `{"query":"release","namespace":"mcp:gh-1"}`,
			[]string{`"release" in mcp:gh-1`, "## mcp:gh-1"}, []string{"mcp:sl-1"}, "", ""},
		{"inline tools are not searched", `{"query":"web search things"}`,
			[]string{"## mcp:"}, []string{"web_search:"}, "", ""},
		{"no match explains", `{"query":"kubernetes"}`,
			[]string{`No folded tool matches "kubernetes"`, "mcp:gh-1, mcp:mail-1, mcp:sl-1"}, nil, "", ""},
		{"verbose returns schemas and records them", `{"query":"create issue","verbose":true,"limit":1}`,
			[]string{"parameters: {", "now inspected"}, nil, gh[0].Name, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := runOne(t, p, toolstest.Call("c", "tool_search", tt.args, scope))
			if o.Status != tools.StatusResult || !json.Valid(o.Display) {
				t.Fatalf("status %s display %s: %s", o.Status, o.Display, o.Content)
			}
			for _, c := range tt.contains {
				if !strings.Contains(o.Content, c) {
					t.Errorf("lacks %q:\n%s", c, o.Content)
				}
			}
			for _, c := range tt.lacks {
				if strings.Contains(o.Content, c) {
					t.Errorf("has %q:\n%s", c, o.Content)
				}
			}
			if tt.wantInspected != "" && !p.Inspected("s1", tt.wantInspected) {
				t.Errorf("%s not recorded as inspected", tt.wantInspected)
			}
			if tt.wantNotInspect != "" && p.Inspected("s1", tt.wantNotInspect) {
				t.Errorf("plain search recorded %s as inspected", tt.wantNotInspect)
			}
		})
	}
	// The best match comes first.
	o := runOne(t, p, toolstest.Call("c", "tool_search", `{"query":"create issue","limit":1}`, scope))
	if !strings.Contains(o.Content, "1 of ") || !strings.Contains(o.Content, gh[0].Name) {
		t.Fatalf("best match is not create_issue:\n%s", o.Content)
	}
	// Nothing folded: search says so.
	big := scope
	big.Model.ContextWindow = 100_000_000
	big.SessionID = "s-big"
	p.Forget("s1")
	if o := runOne(t, p, toolstest.Call("c", "tool_search", `{"query":"issue"}`, big)); !strings.Contains(o.Content, "No tools are folded") {
		t.Fatalf("unfolded search: %q", o.Content)
	}
}

func TestToolInspect(t *testing.T) {
	p, scope, gh := foldedSetup(t, tools.Options{})
	o := runOne(t, p, toolstest.Call("c1", "tool_inspect", `{"name":"`+gh[5].Name+`"}`, scope))
	for _, want := range []string{"tool: " + gh[5].Name, "namespace: mcp:gh-1 (GitHub)", "parameters (JSON Schema): {", `"owner"`, "tool_invoke"} {
		if !strings.Contains(o.Content, want) {
			t.Fatalf("inspect lacks %q:\n%s", want, o.Content)
		}
	}
	if !p.Inspected("s1", gh[5].Name) || p.Inspected("other", gh[5].Name) {
		t.Fatal("ledger not per session")
	}
	// Unknown names get suggestions.
	typo := strings.Replace(gh[5].Name, "mcp__", "mcp_", 1)
	o = runOne(t, p, toolstest.Call("c2", "tool_inspect", `{"name":"`+typo+`"}`, scope))
	if o.Err == nil || o.Err.Code != apperr.ToolNotFound || !strings.Contains(o.Content, "Did you mean: "+gh[5].Name) {
		t.Fatalf("unknown inspect: %v %q", o.Err, o.Content)
	}
	// Missing argument is a schema error like any other tool's.
	if o := runOne(t, p, toolstest.Call("c3", "tool_inspect", `{}`, scope)); o.Err.Code != apperr.ToolArgsInvalid {
		t.Fatalf("missing name: %v", o.Err)
	}
}

func TestToolInvokeGates(t *testing.T) {
	var permCalls []string
	perm := tools.PermissionFunc(func(ctx context.Context, req tools.PermissionRequest) (tools.Decision, error) {
		permCalls = append(permCalls, req.Call.Name)
		if strings.Contains(req.Call.Name, "delete") {
			return tools.Decision{Behavior: tools.BehaviorDeny, Source: tools.SourceConfig, Reason: "deletes are denied by a rule"}, nil
		}
		return tools.AllowAll{}.Check(ctx, req)
	})
	p, scope, gh := foldedSetup(t, tools.Options{Permission: perm})
	target := gh[0].Name // create_issue
	gated := tools.MCPName("mail-1", "Mail", "send")
	var del string
	for _, e := range gh {
		if strings.Contains(e.Name, "delete") {
			del = e.Name
			break
		}
	}
	invoke := func(id, name, args string, s tools.Scope) tools.Outcome {
		return runOne(t, p, toolstest.Call(id, "tool_invoke", `{"name":"`+name+`","arguments":`+args+`}`, s))
	}
	good := `{"owner":"o","repo":"r","title":"t"}`

	// 1. Not inspected yet: refused.
	o := invoke("c1", target, good, scope)
	if o.Err == nil || o.Err.Code != apperr.ToolNotInspected || !strings.Contains(o.Content, "inspect "+target) {
		t.Fatalf("uninspected invoke: %v %q", o.Err, o.Content)
	}
	// 2. Inspected: runs through the pipeline, the outcome is the target's.
	runOne(t, p, toolstest.Call("c2", "tool_inspect", `{"name":"`+target+`"}`, scope))
	o = invoke("c3", target, good, scope)
	if o.Status != tools.StatusResult || o.Name != "tool_invoke" || !strings.Contains(o.Content, `"tool":"create_issue"`) {
		t.Fatalf("invoke after inspect: %s %q", o.Status, o.Content)
	}
	// 3. The ledger is per session.
	other := scope
	other.SessionID = "s2"
	if o := invoke("c4", target, good, other); o.Err == nil || o.Err.Code != apperr.ToolNotInspected {
		t.Fatalf("other session: %v", o.Err)
	}
	// 4. The target's arguments are validated against the target's schema.
	if o := invoke("c5", target, `{"owner":"o"}`, scope); o.Err == nil || o.Err.Code != apperr.ToolArgsInvalid ||
		!strings.Contains(o.Content, "invalid arguments for "+target+": missing required field") {
		t.Fatalf("bad target args: %v %q", o.Err, o.Content)
	}
	// 5. An approval-gated tool runs through tool_invoke, judged by the permission step
	// under its own name.
	o = runOne(t, p, toolstest.Call("c6", "tool_inspect", `{"name":"`+gated+`"}`, scope))
	if !strings.Contains(o.Content, "needs the user's approval") {
		t.Fatalf("inspect of a gated tool: %q", o.Content)
	}
	if o := invoke("c7", gated, `{"text":"x"}`, scope); o.Status != tools.StatusResult || o.Content != "x" || !slices.Contains(permCalls, gated) {
		t.Fatalf("gated invoke: %v %q (permission saw %v)", o.Err, o.Content, permCalls)
	}
	// 6. Permission rules apply to the target through tool_invoke.
	runOne(t, p, toolstest.Call("c8", "tool_inspect", `{"name":"`+del+`"}`, scope))
	if o := invoke("c9", del, `{"owner":"o","repo":"r","number":1}`, scope); o.Err == nil || o.Err.Code != apperr.ToolPermissionDeny {
		t.Fatalf("denied target: %v %q", o.Err, o.Content)
	}
	if !slices.Contains(permCalls, del) || slices.Contains(permCalls, "tool_invoke") {
		t.Fatalf("permission saw %v; it must judge the target, not the wrapper", permCalls)
	}
	// 7. Unknown and meta targets.
	if o := invoke("c10", "create_isue", `{}`, scope); o.Err == nil || o.Err.Code != apperr.ToolNotFound {
		t.Fatalf("unknown target: %v", o.Err)
	}
	if o := invoke("c11", "tool_invoke", `{}`, scope); o.Err == nil || o.Err.Code != apperr.ToolInputRejected {
		t.Fatalf("nested invoke: %v", o.Err)
	}
	// 8. Arguments must be an object, as the meta tool's schema says.
	if o := runOne(t, p, toolstest.Call("c12", "tool_invoke", `{"name":"`+target+`","arguments":"{}"}`, scope)); o.Err == nil || o.Err.Code != apperr.ToolArgsInvalid {
		t.Fatalf("string arguments: %v", o.Err)
	}
	// 9. Forget clears the ledger.
	p.Forget("s1")
	if o := invoke("c13", target, good, scope); o.Err == nil || o.Err.Code != apperr.ToolNotInspected {
		t.Fatalf("after Forget: %v", o.Err)
	}
}

// TestDeferredToolsEndToEnd is the model's path through 121 folded tools in one session:
// the request carries only the meta tools, then search → inspect → invoke.
func TestDeferredToolsEndToEnd(t *testing.T) {
	p, scope, gh := foldedSetup(t, tools.Options{})
	sel, _ := p.Select(context.Background(), scope)
	want := []string{"tool_inspect", "tool_invoke", "tool_search", "web_search"}
	if got := names(sel.Tools); !slices.Equal(got, want) {
		t.Fatalf("request tools %v, want %v", got, want)
	}
	if !strings.Contains(sel.Instructions, "- mcp:gh-1 (GitHub): 100 tools") || !strings.Contains(sel.Instructions, "- mcp:sl-1 (Slack): 20 tools") {
		t.Fatalf("instructions:\n%s", sel.Instructions)
	}

	rec := &toolstest.Recorder{}
	// Turn 1: search (read-only, so both run in parallel).
	outs := p.RunBatch(context.Background(), []tools.Call{
		toolstest.Call("1", "tool_search", `{"query":"list pull request"}`, scope),
		toolstest.Call("2", "tool_search", `{"query":"merge","namespace":"GitHub"}`, scope),
	}, rec)
	var listPR string
	for _, e := range gh {
		if strings.Contains(e.Name, "__listPullRequest_") {
			listPR = e.Name
		}
	}
	if listPR == "" || !strings.Contains(outs[0].Content, listPR) {
		t.Fatalf("search did not find %q:\n%s", listPR, outs[0].Content)
	}
	// Turn 2: inspect. Turn 3: invoke.
	outs = p.RunBatch(context.Background(), []tools.Call{toolstest.Call("3", "tool_inspect", `{"name":"`+listPR+`"}`, scope)}, rec)
	if outs[0].Status != tools.StatusResult {
		t.Fatal(outs[0].Content)
	}
	outs = p.RunBatch(context.Background(), []tools.Call{
		toolstest.Call("4", "tool_invoke", `{"name":"`+listPR+`","arguments":{"owner":"cairn","repo":"app","state":"open"}}`, scope),
	}, rec)
	if outs[0].Status != tools.StatusResult || !strings.Contains(outs[0].Content, `"state":"open"`) {
		t.Fatalf("invoke: %s %q", outs[0].Status, outs[0].Content)
	}
	// The target's progress reached the tool_invoke call's card.
	var progress []string
	for _, e := range rec.Events() {
		if e.Kind == "progress" {
			progress = append(progress, e.Progress.CallID+":"+e.Progress.Kind)
		}
	}
	if !slices.Equal(progress, []string{"4:mcp"}) {
		t.Fatalf("progress %v", progress)
	}
	// Calling a folded tool directly by its wire name also works (it goes through the
	// same pipeline).
	o := runOne(t, p, toolstest.Call("5", listPR, `{"owner":"cairn","repo":"app"}`, scope))
	if o.Status != tools.StatusResult {
		t.Fatalf("direct call of a folded tool: %q", o.Content)
	}
}
