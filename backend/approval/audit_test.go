package approval_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/tools"
)

// lastAudit is the newest audit entry with the decision.
func (e *env) lastAudit(decision string) approval.AuditEntry {
	e.t.Helper()
	page, err := e.svc.ListAudit(e.ctx, approval.AuditQuery{Decision: decision}, 1)
	if err != nil || len(page.Entries) != 1 {
		e.t.Fatalf("audit %s: %+v %v", decision, page.Entries, err)
	}
	return page.Entries[0]
}

// TestAuditReasonsAreCodes: every audit entry says why as a code and its parameters
// (the verdict's, or the service's own), with the English text kept beside it; a user's
// typed reason has no code and stays as written.
func TestAuditReasonsAreCodes(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()

	waitFor(t, e.run(e.ctx, nil, call("c1", "test_echo", `{"text":"hi"}`, "s1")), "read-only call")
	if a := e.lastAudit(approval.AuditAutoAllow); a.ReasonCode != "read_only" || a.ReasonParams != nil || a.Reason != "a read-only tool" {
		t.Fatalf("read-only: %+v", a)
	}

	rule, err := e.svc.SaveRule(e.ctx, permission.Rule{Behavior: permission.Deny, Tool: "test_par_a"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, e.run(e.ctx, nil, call("c2", "test_par_a", `{"path":"x"}`, "s1")), "denied call")
	a := e.lastAudit(approval.AuditAutoDeny)
	if a.ReasonCode != "rule_denies" || !maps.Equal(a.ReasonParams, map[string]string{"rule": rule.String()}) || a.RuleID != rule.ID {
		t.Fatalf("rule deny: %+v", a)
	}

	done := e.run(e.ctx, nil, call("c3", "test_write", `{"path":"notes/a.md"}`, "s1"))
	req := nextEvent(t, sub, approval.EventRequested)
	if _, err := e.svc.Decide(e.ctx, req.ID, "deny", "not now", "window-a"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, done, "user-denied call")
	if a := e.lastAudit("deny"); a.ReasonCode != "" || a.Reason != "not now" {
		t.Fatalf("user deny: %+v", a)
	}

	ctx, cancel := context.WithCancel(e.ctx)
	done = e.run(ctx, nil, call("c4", "test_write", `{"path":"notes/b.md"}`, "s1"))
	nextEvent(t, sub, approval.EventRequested)
	cancel()
	waitFor(t, done, "stopped call")
	if a := e.lastAudit("cancelled"); a.ReasonCode != "turn_stopped" || a.Reason == "" {
		t.Fatalf("stopped: %+v", a)
	}

	// The export carries the code and its parameters too.
	ex, err := e.svc.ExportAudit(e.ctx, "json", approval.AuditQuery{Decision: approval.AuditAutoDeny})
	if err != nil {
		t.Fatal(err)
	}
	var rows []approval.AuditEntry
	if err := json.Unmarshal([]byte(ex.Content), &rows); err != nil || len(rows) != 1 || rows[0].ReasonCode != "rule_denies" || rows[0].ReasonParams["rule"] != rule.String() {
		t.Fatalf("export %v: %s", err, ex.Content)
	}
}

// TestAuditReasonsOfInterruptAndResume: a request left by a dead process is interrupted
// with cairn_stopped, and its resume is audited with resumed.
func TestAuditReasonsOfInterruptAndResume(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	ctx, stop := context.WithCancel(e.ctx)
	defer stop()
	e.run(ctx, nil, call("c1", "test_write", `{"path":"a"}`, "s1"))
	old := nextEvent(t, sub, approval.EventRequested)
	svc2 := e.open(e.db, events.NewBus()) // a restart while the first process is gone
	if a := e.lastAudit("interrupted"); a.RequestID != old.ID || a.ReasonCode != "cairn_stopped" {
		t.Fatalf("interrupted: %+v", a)
	}
	if _, err := svc2.Resume(e.ctx, old.ID, "window-a", func(context.Context, tools.Call) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if a := e.lastAudit("resumed"); a.ReasonCode != "resumed" || a.Window != "window-a" {
		t.Fatalf("resumed: %+v", a)
	}
}

// TestAuditRowsFromBeforeCodesStillRead: a row written before reason codes (no code, no
// parameters) reads back with its English text, for the window to show as it is.
func TestAuditRowsFromBeforeCodesStillRead(t *testing.T) {
	e := newEnv(t)
	if _, err := e.db.ExecContext(e.ctx, `INSERT INTO approval_audit (at, tool, decision, behavior, source, reason)
		VALUES (1, 'test_write', 'auto_allow', 'allow', 'config', 'a read-only tool')`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.ExecContext(e.ctx, `INSERT INTO approval_audit (at, tool, decision, behavior, reason, reason_code, reason_params)
		VALUES (2, 'test_write', 'auto_deny', 'deny', 'x', 'rule_denies', 'not json')`); err != nil {
		t.Fatal(err)
	}
	if a := e.lastAudit(approval.AuditAutoAllow); a.ReasonCode != "" || a.ReasonParams != nil || a.Reason != "a read-only tool" {
		t.Fatalf("old row: %+v", a)
	}
	if a := e.lastAudit(approval.AuditAutoDeny); a.ReasonCode != "rule_denies" || a.ReasonParams != nil || a.Reason != "x" {
		t.Fatalf("unreadable parameters: %+v", a)
	}
}

// TestAuditReasonCodesHaveLocaleTexts keeps AuditReasonCodes and the windows' texts
// (settings: permissions.audit.reasons) in step, in every locale, both ways.
func TestAuditReasonCodesHaveLocaleTexts(t *testing.T) {
	const dir = "../../frontend/src/i18n/locales"
	langs, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	codes := approval.AuditReasonCodes()
	seen := 0
	for _, l := range langs {
		if !l.IsDir() {
			continue
		}
		seen++
		path := filepath.Join(dir, l.Name(), "settings.json")
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Permissions struct {
				Audit struct {
					Reasons map[string]string `json:"reasons"`
				} `json:"audit"`
			} `json:"permissions"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got := doc.Permissions.Audit.Reasons
		for _, c := range codes {
			if got[c] == "" {
				t.Errorf("%s: permissions.audit.reasons.%s is missing or empty", path, c)
			}
		}
		for k := range got {
			if !slices.Contains(codes, k) {
				t.Errorf("%s: permissions.audit.reasons.%s is not a code of AuditReasonCodes()", path, k)
			}
		}
	}
	if seen == 0 {
		t.Fatalf("no locales in %s", dir)
	}
}
