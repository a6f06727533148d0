package approval_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/permission"
)

func TestRulesCanBeSavedEditedAndDeleted(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(64)
	defer sub.Close()
	_, err := e.svc.SaveRule(e.ctx, permission.Rule{Behavior: permission.Allow, Command: "git status; rm -rf ~"})
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.PermissionRuleInvalid || !strings.Contains(ae.Params["reason"].(string), "one simple command") {
		t.Fatalf("invalid rule: %v", err)
	}
	if _, err := e.svc.SaveRule(e.ctx, permission.Rule{Behavior: permission.Allow, Tool: "x", SessionID: "nope"}); !apperr.Is(err, apperr.SessionNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	r, err := e.svc.SaveRule(e.ctx, permission.Rule{Behavior: permission.Deny, Path: " **/.env ", Note: "secrets"})
	if err != nil || r.ID == "" || r.Source != permission.SourceConfig || r.Path != "**/.env" || r.CreatedAt == 0 {
		t.Fatalf("%+v %v", r, err)
	}
	ev := <-sub.C
	var list approval.RuleList
	if ev.Type != approval.EventRulesChanged || json.Unmarshal(ev.Data, &list) != nil || len(list.Rules) != 1 {
		t.Fatalf("event %s %s", ev.Type, ev.Data)
	}
	r.Behavior = permission.Ask
	r2, err := e.svc.SaveRule(e.ctx, r)
	if err != nil || r2.ID != r.ID || r2.CreatedAt != r.CreatedAt {
		t.Fatalf("%+v %v", r2, err)
	}
	list, _ = e.svc.ListRules(e.ctx)
	if len(list.Rules) != 1 || list.Rules[0].Behavior != permission.Ask || list.Rules[0].Note != "secrets" {
		t.Fatalf("%+v", list.Rules)
	}
	if _, err := e.svc.SaveRule(e.ctx, permission.Rule{ID: "missing", Behavior: permission.Deny, Tool: "x"}); !apperr.Is(err, apperr.PermissionRuleNotFound) {
		t.Fatalf("update missing: %v", err)
	}
	if err := e.svc.DeleteRule(e.ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.DeleteRule(e.ctx, r.ID); !apperr.Is(err, apperr.PermissionRuleNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

func TestRuleTester(t *testing.T) {
	e := newEnv(t)
	if _, err := e.svc.SaveRule(e.ctx, permission.Rule{Behavior: permission.Deny, Command: "rm"}); err != nil {
		t.Fatal(err)
	}
	draft := &permission.Rule{Behavior: permission.Allow, Tool: "sandbox_bash", Command: "git status"}
	tests := []struct {
		name   string
		sample approval.Sample
		want   permission.Behavior
		decide bool
	}{
		{"draft allows", approval.Sample{Tool: "sandbox_bash", Args: json.RawMessage(`{"command":"git status -s"}`), Rule: draft}, permission.Allow, true},
		{"draft does not cover a list", approval.Sample{Tool: "sandbox_bash", Args: json.RawMessage(`{"command":"git status; ls"}`), Rule: draft}, permission.Ask, false},
		{"stored deny wins", approval.Sample{Tool: "sandbox_bash", Args: json.RawMessage(`{"command":"git status && rm x"}`), Rule: draft}, permission.Deny, false},
		{"draft alone", approval.Sample{Tool: "sandbox_bash", Args: json.RawMessage(`{"command":"git status && rm x"}`), Rule: draft, Only: true}, permission.Ask, false},
		{"mode override", approval.Sample{Tool: "test_write", Mode: permission.ModePlan}, permission.Deny, false},
		{"registered read-only", approval.Sample{Tool: "test_echo", Args: json.RawMessage(`{"text":"x"}`)}, permission.Allow, false},
		{"unknown tool with flags", approval.Sample{Tool: "web_fetch", ReadOnly: true}, permission.Allow, false},
	}
	for _, tt := range tests {
		res, err := e.svc.TestRule(e.ctx, tt.sample)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if res.Verdict.Behavior != tt.want || res.RuleDecides != tt.decide {
			t.Errorf("%s: %+v (decides %v)", tt.name, res.Verdict, res.RuleDecides)
		}
	}
	res, _ := e.svc.TestRule(e.ctx, approval.Sample{Tool: "sandbox_bash", Args: json.RawMessage(`{"command":"echo $(id) > /tmp/x"}`)})
	if !res.Registered || len(res.Shell) != 1 || len(res.Shell[0].Hidden) == 0 || res.Shell[0].Writes[0] != "/tmp/x" {
		t.Fatalf("explanation %+v", res)
	}
	if _, err := e.svc.TestRule(e.ctx, approval.Sample{Tool: "x", Rule: &permission.Rule{Behavior: "nope"}}); !apperr.Is(err, apperr.PermissionRuleInvalid) {
		t.Fatalf("bad draft: %v", err)
	}
	if _, err := e.svc.TestRule(e.ctx, approval.Sample{Tool: "x", Mode: "yolo"}); !apperr.Is(err, apperr.PermissionModeInvalid) {
		t.Fatalf("bad mode: %v", err)
	}
}

func TestAuditSearchPagingAndExport(t *testing.T) {
	e := newEnv(t)
	for i, args := range []string{`{"text":"alpha"}`, `{"text":"=HYPERLINK(\"x\")"}`, `{"text":"gamma"}`} {
		waitFor(t, e.run(e.ctx, nil, call("c"+string(rune('0'+i)), "test_echo", args, "s1")), "batch")
	}
	page, err := e.svc.ListAudit(e.ctx, approval.AuditQuery{Text: "ALPHA"}, 10)
	if err != nil || len(page.Entries) != 1 || !strings.Contains(page.Entries[0].ArgsSummary, "alpha") {
		t.Fatalf("search %+v %v", page, err)
	}
	if page, _ := e.svc.ListAudit(e.ctx, approval.AuditQuery{Text: "%"}, 10); len(page.Entries) != 0 {
		t.Fatalf("%% is not a wildcard: %+v", page.Entries)
	}
	first, _ := e.svc.ListAudit(e.ctx, approval.AuditQuery{}, 2)
	if len(first.Entries) != 2 || first.Next == 0 || !strings.Contains(first.Entries[0].ArgsSummary, "gamma") {
		t.Fatalf("first page %+v", first)
	}
	second, _ := e.svc.ListAudit(e.ctx, approval.AuditQuery{Before: first.Next}, 2)
	if len(second.Entries) != 1 || second.Next != 0 || !strings.Contains(second.Entries[0].ArgsSummary, "alpha") {
		t.Fatalf("second page %+v", second)
	}
	if p, _ := e.svc.ListAudit(e.ctx, approval.AuditQuery{SessionID: "s2"}, 10); len(p.Entries) != 0 {
		t.Fatalf("session filter %+v", p.Entries)
	}

	js, err := e.svc.ExportAudit(e.ctx, "json", approval.AuditQuery{})
	var entries []approval.AuditEntry
	if err != nil || js.MimeType != "application/json" || !strings.HasSuffix(js.FileName, ".json") || js.Count != 3 ||
		json.Unmarshal([]byte(js.Content), &entries) != nil || len(entries) != 3 {
		t.Fatalf("json export %+v %v", js, err)
	}
	cs, err := e.svc.ExportAudit(e.ctx, "CSV", approval.AuditQuery{})
	if err != nil || cs.MimeType != "text/csv" {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(cs.Content)).ReadAll()
	if err != nil || len(rows) != 4 || rows[0][4] != "tool" {
		t.Fatalf("csv %v %v", rows, err)
	}
	for _, r := range rows[1:] {
		if strings.HasPrefix(r[5], "=") {
			t.Fatalf("formula left live in %q", r[5])
		}
	}
	if _, err := e.svc.ExportAudit(e.ctx, "xml", approval.AuditQuery{}); !apperr.Is(err, apperr.InvalidArgument) {
		t.Fatalf("xml: %v", err)
	}
}

func TestTerminalAnswers(t *testing.T) {
	for _, tt := range []struct {
		mode, input string
		want        approval.Status
		reason      string
		ran         int64
	}{
		{"ask", "maybe\nn rather not\n", approval.StatusDenied, "rather not", 0},
		{"ask", "y\n", approval.StatusAllowed, "", 1},
		{"ask", "", approval.StatusDenied, "nobody answered on the terminal", 0},
		{"allow", "", approval.StatusAllowed, "", 1},
		{"deny", "", approval.StatusDenied, "denied by --approve deny", 0},
	} {
		t.Run(tt.mode+"/"+strings.TrimSpace(tt.input), func(t *testing.T) {
			e := newEnv(t)
			var out bytes.Buffer
			d, err := approval.NewTerminalDecider(tt.mode, strings.NewReader(tt.input), &out)
			if err != nil {
				t.Fatal(err)
			}
			ctx, stop := context.WithCancel(e.ctx)
			attended := make(chan error, 1)
			sub := e.bus.Subscribe(64)
			defer sub.Close()
			go func() { attended <- e.svc.Attend(ctx, "s1", d, "terminal", &out) }()
			o := waitFor(t, e.run(e.ctx, nil, call("c1", "sandbox_bash", `{"command":"make deploy"}`, "s1")), "batch")[0]
			dec := nextEvent(t, sub, approval.EventDecided)
			stop()
			if err := waitFor(t, attended, "attend"); err != nil {
				t.Fatal(err)
			}
			if dec.Status != tt.want || dec.DecisionReason != tt.reason || dec.Window != "terminal" || e.bash.n.Load() != tt.ran {
				t.Fatalf("decided %+v (outcome %s, ran %d)", dec, o.Status, e.bash.n.Load())
			}
			if tt.mode == "ask" && !strings.Contains(out.String(), "command: make deploy") {
				t.Fatalf("prompt:\n%s", out.String())
			}
		})
	}
	if _, err := approval.NewTerminalDecider("sometimes", nil, nil); !apperr.Is(err, apperr.InvalidArgument) {
		t.Fatalf("bad mode: %v", err)
	}
}
