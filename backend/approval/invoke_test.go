package approval_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// seen is everything the permission step produced for one call: the outcome the model
// reads, the approval request the windows were shown (nil when nobody was asked), the
// request part the conversation got, the audit entry, and whether the tool ran.
type seen struct {
	Status  tools.Status
	Code    string
	Content string
	Request *approval.Request
	Parts   int
	Audit   string // decision, source, reason code, tool
	Ran     int64
}

// invokeTool is one tool of the table: how to call it and the counter of its runs.
type invokeTool struct {
	name string
	args string
	runs func() int64
}

// TestInvokeIsJudgedLikeADirectCall is the guarantee that lets approval-gated tools fold:
// for every permission mode and every kind of rule, a call through tool_invoke gets the
// verdict, the approval request (the dialog's every field), the request part, the audit
// entry and the run a direct call of the same tool with the same arguments gets.
func TestInvokeIsJudgedLikeADirectCall(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(4096)
	defer sub.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	mcpRead, mcpWrite, mcpDelete := &counting{}, &counting{}, &counting{}
	read := mcpRead.entry(tools.MCPName("fs-1", "Files", "read_note"), "mcp:fs-1", pathSchema, true, true)
	write := mcpWrite.entry(tools.MCPName("fs-1", "Files", "write_note"), "mcp:fs-1", pathSchema, false, false)
	write.Approval = tools.ApprovalAsk // the user chose "ask" for it
	del := mcpDelete.entry(tools.MCPName("fs-1", "Files", "erase_note"), "mcp:fs-1", pathSchema, false, false)
	del.Destructive = true // no choice of its own: the defaults ask, as it can delete
	fs := append(toolstest.MCPLike("fs-1", "Files", 60), read, write, del)
	for i := range fs {
		fs[i].Namespace, fs[i].NamespaceLabel = "mcp:fs-1", "Files"
	}
	if err := e.reg.ReplaceNamespace("mcp:fs-1", fs); err != nil {
		t.Fatal(err)
	}
	scope := toolstest.ChatScope("s1")
	scope.Model.ContextWindow = 32_000
	sel, err := e.pipe.Select(e.ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{read.Name, write.Name, del.Name} {
		if !slices.Contains(sel.Deferred, n) {
			t.Fatalf("%s is not folded (%d folded)", n, len(sel.Deferred))
		}
	}
	pathArgs := fmt.Sprintf(`{"path":%q}`, file)
	table := []invokeTool{
		{read.Name, pathArgs, mcpRead.n.Load},
		{write.Name, pathArgs, mcpWrite.n.Load},
		{del.Name, pathArgs, mcpDelete.n.Load},
		{"test_write", pathArgs, e.write.n.Load},
		{"sandbox_bash", `{"command":"git status --short"}`, e.bash.n.Load},
	}
	for _, tt := range table {
		if o := waitFor(t, e.run(e.ctx, nil, toolstest.Call("inspect-"+tt.name, "tool_inspect", `{"name":"`+tt.name+`"}`, scope)), "inspect")[0]; o.Status != tools.StatusResult {
			t.Fatalf("inspect %s: %+v", tt.name, o)
		}
	}
	rules := []permission.Rule{
		{},
		{Behavior: permission.Allow, Tool: "*"},
		{Behavior: permission.Deny, Tool: "*"},
		{Behavior: permission.Ask, Tool: "*"},
		{Behavior: permission.Allow, Tool: "mcp:fs-1"},
		{Behavior: permission.Deny, Tool: "mcp:*"},
		{Behavior: permission.Allow, Path: filepath.Join(dir, "**")},
		{Behavior: permission.Deny, Path: file},
		{Behavior: permission.Ask, Path: filepath.Join(dir, "**")},
		{Behavior: permission.Allow, Command: "git status"},
		{Behavior: permission.Deny, Command: "git"},
		{Behavior: permission.Allow, Tool: "*", SessionID: "s1"},
	}
	modes := []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan, permission.ModeBypass}
	type pair struct {
		name         string
		direct, inv  seen
		dCall, iCall string
	}
	var pairs []pair
	n := 0
	for _, mode := range modes {
		if _, err := e.svc.SetSessionMode(e.ctx, "s1", string(mode)); err != nil {
			t.Fatal(err)
		}
		for _, rule := range rules {
			id := e.useRule(rule)
			for _, tt := range table {
				n++
				choice := []string{"allow_once", "deny"}[n%2]
				name := fmt.Sprintf("%s/%s/%s", mode, ruleName(rule), tt.name)
				pr := pair{name: name, dCall: fmt.Sprintf("d%d", n), iCall: fmt.Sprintf("i%d", n)}
				pr.direct = e.judge(sub, toolstest.Call(pr.dCall, tt.name, tt.args, scope), choice, tt.runs)
				pr.inv = e.judge(sub, toolstest.Call(pr.iCall, "tool_invoke", `{"name":"`+tt.name+`","arguments":`+tt.args+`}`, scope), choice, tt.runs)
				pairs = append(pairs, pr)
			}
			if id != "" {
				if err := e.svc.DeleteRule(e.ctx, id); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// The audit entries, read once (a query per call is most of the test's time under -race).
	page, err := e.svc.ListAudit(e.ctx, approval.AuditQuery{SessionID: "s1"}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	audit := map[string]string{}
	for _, a := range page.Entries {
		audit[a.CallID] = a.Decision + " " + a.Source + " " + a.ReasonCode + " " + a.Tool
	}
	kinds := map[string]int{}
	for _, pr := range pairs {
		pr.direct.Audit, pr.inv.Audit = audit[pr.dCall], audit[pr.iCall]
		if pr.direct.Audit == "" || !reflect.DeepEqual(pr.direct, pr.inv) {
			t.Errorf("%s:\n direct %+v\n invoke %+v", pr.name, show(pr.direct), show(pr.inv))
		}
		kinds[strings.Fields(pr.direct.Audit + " ")[0]]++
	}
	t.Logf("%d cases: %v", n, kinds)
	// The table exercises every way a verdict can go, not one of them 240 times.
	for _, k := range []string{"auto_allow", "auto_deny", "allow_once", "deny"} {
		if kinds[k] == 0 {
			t.Errorf("no case ended as %s: %v", k, kinds)
		}
	}
}

func (e *env) useRule(r permission.Rule) string {
	e.t.Helper()
	if r.Behavior == "" {
		return ""
	}
	saved, err := e.svc.SaveRule(e.ctx, r)
	if err != nil {
		e.t.Fatalf("rule %+v: %v", r, err)
	}
	return saved.ID
}

func ruleName(r permission.Rule) string {
	if r.Behavior == "" {
		return "no rule"
	}
	return fmt.Sprintf("%s tool=%q path=%q command=%q session=%q", r.Behavior, r.Tool, r.Path, r.Command, r.SessionID)
}

func show(s seen) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// judge runs one call through the pipeline, answers its approval request (if one comes)
// with choice, and reports what it saw with the call's own ids taken out (the audit entry
// is read afterwards for all calls at once).
func (e *env) judge(sub *events.Subscription, c tools.Call, choice string, runs func() int64) seen {
	e.t.Helper()
	before := runs()
	obs := &partObserver{}
	done := e.run(e.ctx, obs, c)
	var s seen
	var out []tools.Outcome
	for out == nil {
		select {
		case out = <-done:
		case ev := <-sub.C:
			if ev.Topic != events.TopicApprovals || ev.Type != approval.EventRequested {
				continue
			}
			var r approval.Request
			if err := json.Unmarshal(ev.Data, &r); err != nil {
				e.t.Fatal(err)
			}
			if r.CallID != c.ID {
				e.t.Fatalf("request for call %q while running %q", r.CallID, c.ID)
			}
			if _, err := e.svc.Decide(e.ctx, r.ID, choice, "", "w"); err != nil {
				e.t.Fatal(err)
			}
			r.ID, r.CallID, r.MessageID, r.CreatedAt = "", "", "", 0
			s.Request = &r
		}
	}
	o := out[0]
	s.Status, s.Content, s.Ran = o.Status, o.Content, runs()-before
	if o.Err != nil {
		s.Code = string(o.Err.Code)
	}
	req, _ := obs.parts()
	s.Parts = len(req)
	return s
}
