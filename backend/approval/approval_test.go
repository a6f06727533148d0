package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/tools"
)

func TestReadOnlyToolPassesAndIsAudited(t *testing.T) {
	e := newEnv(t)
	o := waitFor(t, e.run(e.ctx, nil, call("c1", "test_echo", `{"text":"hi"}`, "s1")), "batch")[0]
	if o.Status != tools.StatusResult || o.Content != "hi" {
		t.Fatalf("outcome %+v", o)
	}
	if p, _ := e.svc.ListPending(e.ctx); len(p.Requests) != 0 {
		t.Fatalf("a read-only call was asked about: %+v", p.Requests)
	}
	page, _ := e.svc.ListAudit(e.ctx, approval.AuditQuery{}, 10)
	if len(page.Entries) != 1 || page.Entries[0].Decision != approval.AuditAutoAllow || page.Entries[0].Source != permission.SourceConfig ||
		page.Entries[0].SessionTitle != "Session s1" || page.Entries[0].ArgsSummary != `{"text":"hi"}` {
		t.Fatalf("audit %+v", page.Entries)
	}
}

// TestAskWaitsForTheDecision: the request is stored and announced, the call waits, and
// only the decision lets it run; the decision is committed before the call resumes.
func TestAskWaitsForTheDecision(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	obs := &partObserver{}
	done := e.run(e.ctx, obs, call("c1", "test_write", `{"path":"notes/a.md"}`, "s1"))
	req := nextEvent(t, sub, approval.EventRequested)
	if req.Tool != "test_write" || req.CallID != "c1" || req.SessionID != "s1" || req.MessageID != "m-c1" ||
		req.Status != approval.StatusPending || !slices.Equal(req.Touches.Paths, []string{"notes/a.md"}) ||
		req.AskReason == "" || len(req.Rules) != 1 || string(req.Args) != `{"path":"notes/a.md"}` {
		t.Fatalf("request %+v", req)
	}
	// The write says its change itself, previewed against its file in the call's session:
	// the dialog shows it, from the event and the list.
	if len(req.Edits) != 1 || req.Edits[0].Path != "notes/a.md" || req.Edits[0].Diff != "+preview in s1" {
		t.Fatalf("edits %+v", req.Edits)
	}
	pending, err := e.svc.PendingForSession(e.ctx, "s1")
	if err != nil || len(pending) != 1 || pending[0].ID != req.ID || len(pending[0].Edits) != 1 || pending[0].Edits[0].Diff != "+preview in s1" || pending[0].Title != "write" {
		t.Fatalf("pending %+v %v", pending, err)
	}
	if e.write.n.Load() != 0 {
		t.Fatal("the tool ran before anyone decided")
	}
	if reqs, _ := obs.parts(); len(reqs) != 1 || reqs[0].ID != req.ID {
		t.Fatalf("approval-requested parts %+v", reqs)
	}
	got, err := e.svc.Decide(e.ctx, req.ID, "allow_once", "", "window-a")
	if err != nil || got.Status != approval.StatusAllowed || got.Window != "window-a" || got.DecidedAt == 0 {
		t.Fatalf("decide %+v %v", got, err)
	}
	if ev := nextEvent(t, sub, approval.EventDecided); ev.ID != req.ID || ev.Decision != approval.AllowOnce {
		t.Fatalf("decided event %+v", ev)
	}
	o := waitFor(t, done, "batch")[0]
	if o.Status != tools.StatusResult || e.write.n.Load() != 1 {
		t.Fatalf("outcome %+v, ran %d", o, e.write.n.Load())
	}
	if _, dec := obs.parts(); len(dec) != 1 || dec[0].Decision != approval.AllowOnce {
		t.Fatalf("approval-decided parts %+v", dec)
	}
	if p, _ := e.svc.PendingForSession(e.ctx, "s1"); len(p) != 0 {
		t.Fatalf("still pending %+v", p)
	}
	// Allow once creates no rule: the next call asks again.
	done = e.run(e.ctx, nil, call("c2", "test_write", `{"path":"notes/a.md"}`, "s1"))
	again := nextEvent(t, sub, approval.EventRequested)
	if _, err := e.svc.Decide(e.ctx, again.ID, "deny", "not now", "window-b"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, done, "batch")
	if got := e.auditDecisions(approval.AuditQuery{UserOnly: true}); !slices.Equal(got, []string{"test_write:allow_once", "test_write:deny"}) {
		t.Fatalf("audit %v", got)
	}
	page, _ := e.svc.ListAudit(e.ctx, approval.AuditQuery{Decision: "deny"}, 10)
	if len(page.Entries) != 1 || page.Entries[0].Window != "window-b" || page.Entries[0].Source != permission.SourceUserReject ||
		page.Entries[0].Reason != "not now" || page.Entries[0].ArgsSummary != "paths: notes/a.md" {
		t.Fatalf("deny audit %+v", page.Entries)
	}
}

func TestDenyReasonReachesTheModel(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	done := e.run(e.ctx, nil, call("c1", "sandbox_bash", `{"command":"rm -rf build"}`, "s1"))
	req := nextEvent(t, sub, approval.EventRequested)
	if !slices.Equal(req.Touches.Commands, []string{"rm -rf build"}) {
		t.Fatalf("touches %+v", req.Touches)
	}
	if _, err := e.svc.Decide(e.ctx, req.ID, "deny", "use make clean instead", "w"); err != nil {
		t.Fatal(err)
	}
	o := waitFor(t, done, "batch")[0]
	if o.Err == nil || o.Err.Code != apperr.ToolPermissionDeny || !strings.Contains(o.Content, "the user denied it: use make clean instead") ||
		e.bash.n.Load() != 0 {
		t.Fatalf("outcome %+v", o)
	}
}

// TestFirstDecisionWins: two windows send 50 decisions at once for one request: exactly
// one is applied, the other 49 get approval_already_decided saying what won, and the
// tool runs at most once (once if the winner allowed it).
func TestFirstDecisionWins(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(1024)
	defer sub.Close()
	done := e.run(e.ctx, nil, call("c1", "test_write", `{"path":"x"}`, "s1"))
	req := nextEvent(t, sub, approval.EventRequested)

	const n = 50
	start := make(chan struct{})
	errs := make([]error, n)
	wins := make([]approval.Request, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			window, choice := "window-a", "allow_once"
			if i%2 == 1 {
				window, choice = "window-b", "deny"
			}
			if i%5 == 0 {
				choice = "allow_session"
			}
			<-start
			wins[i], errs[i] = e.svc.Decide(e.ctx, req.ID, choice, "", window)
		}()
	}
	close(start)
	wg.Wait()
	var winner approval.Request
	applied := 0
	for i, err := range errs {
		if err == nil {
			applied++
			winner = wins[i]
		}
	}
	if applied != 1 {
		t.Fatalf("%d decisions applied, want exactly 1", applied)
	}
	for _, err := range errs {
		if err == nil {
			continue
		}
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Code != apperr.ApprovalAlreadyDecided {
			t.Fatalf("later decision: %v", err)
		}
		if ae.Params["decision"] != string(winner.Decision) || ae.Params["window"] != winner.Window || ae.Params["decidedAt"] == "" {
			t.Fatalf("already-decided params %v, winner %s by %s", ae.Params, winner.Decision, winner.Window)
		}
	}
	o := waitFor(t, done, "batch")[0]
	want := int64(0)
	if winner.Decision != approval.Deny {
		want = 1
	}
	if ran := e.write.n.Load(); ran != want {
		t.Fatalf("the tool ran %d times after %s, want %d (outcome %s)", ran, winner.Decision, want, o.Status)
	}
	// One decided event closed the dialog everywhere.
	if ev := nextEvent(t, sub, approval.EventDecided); ev.ID != req.ID {
		t.Fatalf("decided event %+v", ev)
	}
	for {
		select {
		case ev := <-sub.C:
			if ev.Type == approval.EventDecided {
				t.Fatalf("a second decided event: %s", ev.Data)
			}
			continue
		default:
		}
		break
	}
	if got := e.auditDecisions(approval.AuditQuery{UserOnly: true}); len(got) != 1 {
		t.Fatalf("audit has %d user decisions, want 1: %v", len(got), got)
	}
	// The rule count matches the winner: one for allow_session, none otherwise.
	rules, _ := e.svc.ListRules(e.ctx)
	if wantRules := map[bool]int{true: 1, false: 0}[winner.Decision == approval.AllowSession]; len(rules.Rules) != wantRules {
		t.Fatalf("%d rules after %s", len(rules.Rules), winner.Decision)
	}
}

func TestAllowForTheSessionCreatesASessionRule(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	done := e.run(e.ctx, nil, call("c1", "test_write", `{"path":"a"}`, "s1"))
	req := nextEvent(t, sub, approval.EventRequested)
	got, err := e.svc.Decide(e.ctx, req.ID, "allow_session", "", "w")
	if err != nil || len(got.RuleIDs) != 1 {
		t.Fatalf("%+v %v", got, err)
	}
	waitFor(t, done, "batch")
	rules, _ := e.svc.ListRules(e.ctx)
	if len(rules.Rules) != 1 || rules.Rules[0].SessionID != "s1" || rules.Rules[0].Source != permission.SourceUserTemporary ||
		rules.Rules[0].Tool != "test_write" || rules.Rules[0].RequestID != req.ID {
		t.Fatalf("rules %+v", rules.Rules)
	}
	// Same session: runs without asking. Other session: asks.
	if o := waitFor(t, e.run(e.ctx, nil, call("c2", "test_write", `{"path":"b"}`, "s1")), "batch")[0]; o.Status != tools.StatusResult {
		t.Fatalf("same session %+v", o)
	}
	done = e.run(e.ctx, nil, call("c3", "test_write", `{"path":"b"}`, "s2"))
	other := nextEvent(t, sub, approval.EventRequested)
	if other.SessionID != "s2" {
		t.Fatalf("%+v", other)
	}
	if _, err := e.svc.Decide(e.ctx, other.ID, "deny", "", "w"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, done, "batch")
	// Deleting the session deletes its rules.
	if _, err := e.db.ExecContext(e.ctx, "DELETE FROM sessions WHERE id = 's1'"); err != nil {
		t.Fatal(err)
	}
	if rules, _ := e.svc.ListRules(e.ctx); len(rules.Rules) != 0 {
		t.Fatalf("rules outlived their session: %+v", rules.Rules)
	}
}

func TestAlwaysAllowForACommandIsACommandRule(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	bashCall := func(id, cmd string) tools.Call {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return call(id, "sandbox_bash", string(b), "s1")
	}
	done := e.run(e.ctx, nil, bashCall("c1", "git status"))
	req := nextEvent(t, sub, approval.EventRequested)
	if len(req.Rules) != 1 || req.Rules[0].Command != "git status" || req.Rules[0].Tool != "sandbox_bash" {
		t.Fatalf("suggested rules %+v", req.Rules)
	}
	if _, err := e.svc.Decide(e.ctx, req.ID, "allow_always", "", "w"); err != nil {
		t.Fatal(err)
	}
	if o := waitFor(t, done, "batch")[0]; o.Status != tools.StatusResult {
		t.Fatalf("%+v", o)
	}
	rules, _ := e.svc.ListRules(e.ctx)
	if len(rules.Rules) != 1 || rules.Rules[0].SessionID != "" || rules.Rules[0].Source != permission.SourceUserPermanent {
		t.Fatalf("rules %+v", rules.Rules)
	}
	// Covered in every session, with more arguments.
	if o := waitFor(t, e.run(e.ctx, nil, bashCall("c2", "git status --short")), "batch")[0]; o.Status != tools.StatusResult {
		t.Fatalf("%+v", o)
	}
	// Not covered: asks again.
	for i, cmd := range []string{"git status; rm -rf ~", "git status && curl x | sh", "git status > /etc/passwd", "FOO=1 git status"} {
		done := e.run(e.ctx, nil, bashCall("c"+string(rune('a'+i)), cmd))
		r := nextEvent(t, sub, approval.EventRequested)
		if r.Touches.Commands[0] != cmd {
			t.Fatalf("asked about %q, want %q", r.Touches.Commands[0], cmd)
		}
		if _, err := e.svc.Decide(e.ctx, r.ID, "deny", "", "w"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, done, "batch")
	}
	if n := e.bash.n.Load(); n != 2 {
		t.Fatalf("bash ran %d times, want 2", n)
	}
	// A line that hides what it runs cannot become a rule.
	done = e.run(e.ctx, nil, bashCall("cz", "echo $(id)"))
	r := nextEvent(t, sub, approval.EventRequested)
	if len(r.Rules) != 0 {
		t.Fatalf("rules offered for a hidden command: %+v", r.Rules)
	}
	if _, err := e.svc.Decide(e.ctx, r.ID, "allow_always", "", "w"); !apperr.Is(err, apperr.ApprovalRuleUnavailable) {
		t.Fatalf("always-allow of a hidden command: %v", err)
	}
	if _, err := e.svc.Decide(e.ctx, r.ID, "allow_once", "", "w"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, done, "batch")
}

// TestMCPAlwaysAllowAsksAgainAfterAChange: an always-allow of an MCP tool is bound to its
// schema and its server's command; changing either asks again.
func TestMCPAlwaysAllowAsksAgainAfterAChange(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	mcp := &counting{}
	name := tools.MCPName("srv-1", "Files", "write_file")
	register := func(schema string) {
		ent := mcp.entry(name, tools.MCPNamespace("srv-1"), schema, false, false)
		ent.NamespaceLabel = "Files"
		if err := e.reg.ReplaceNamespace(tools.MCPNamespace("srv-1"), []tools.Entry{ent}); err != nil {
			t.Fatal(err)
		}
	}
	schemaA := `{"type":"object","properties":{"path":{"type":"string"}}}`
	schemaB := `{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string"}}}`
	register(schemaA)
	e.servers.set("srv-1", "npx -y @files/server@1.0")
	c := func(id string) tools.Call { return call(id, name, `{"path":"/tmp/x"}`, "s1") }

	done := e.run(e.ctx, nil, c("c1"))
	req := nextEvent(t, sub, approval.EventRequested)
	if req.Server != "Files" || req.Namespace != "mcp:srv-1" || len(req.Rules) != 1 || req.Rules[0].Fingerprint == "" {
		t.Fatalf("request %+v", req)
	}
	if _, err := e.svc.Decide(e.ctx, req.ID, "allow_always", "", "w"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, done, "batch")
	if o := waitFor(t, e.run(e.ctx, nil, c("c2")), "batch")[0]; o.Status != tools.StatusResult {
		t.Fatalf("same tool: %+v", o)
	}
	// The schema's key order is not a change.
	register(`{"properties":{"path":{"type":"string"}},"type":"object"}`)
	if o := waitFor(t, e.run(e.ctx, nil, c("c3")), "batch")[0]; o.Status != tools.StatusResult {
		t.Fatalf("reordered schema: %+v", o)
	}
	askAgain := func(id, why string) {
		t.Helper()
		done := e.run(e.ctx, nil, c(id))
		r := nextEvent(t, sub, approval.EventRequested)
		if !strings.Contains(r.AskReason, "changed") {
			t.Fatalf("%s: ask reason %q", why, r.AskReason)
		}
		if _, err := e.svc.Decide(e.ctx, r.ID, "deny", "", "w"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, done, "batch")
	}
	register(schemaB)
	askAgain("c4", "schema changed")
	register(schemaA)
	e.servers.set("srv-1", "npx -y @files/server@2.0")
	askAgain("c5", "server command changed")
	e.servers.set("srv-1", "npx -y @files/server@1.0")
	if o := waitFor(t, e.run(e.ctx, nil, c("c6")), "batch")[0]; o.Status != tools.StatusResult {
		t.Fatalf("back to the approved version: %+v", o)
	}
	if n := mcp.n.Load(); n != 4 {
		t.Fatalf("ran %d times, want 4", n)
	}
}

// TestStopDeniesWhatIsPending: a stopped turn ends its pending requests as cancelled;
// the tool never runs and a late decision is refused.
func TestStopDeniesWhatIsPending(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	ctx, cancel := context.WithCancel(e.ctx)
	obs := &partObserver{}
	done := e.run(ctx, obs, call("c1", "test_write", `{}`, "s1"))
	req := nextEvent(t, sub, approval.EventRequested)
	cancel()
	o := waitFor(t, done, "batch")[0]
	if o.Status != tools.StatusStopped || e.write.n.Load() != 0 {
		t.Fatalf("outcome %+v", o)
	}
	if ev := nextEvent(t, sub, approval.EventDecided); ev.ID != req.ID || ev.Status != approval.StatusCancelled {
		t.Fatalf("event %+v", ev)
	}
	if st := e.status(req.ID); st != approval.StatusCancelled {
		t.Fatalf("status %s", st)
	}
	if _, dec := obs.parts(); len(dec) != 1 || dec[0].Status != approval.StatusCancelled {
		t.Fatalf("decided part %+v", dec)
	}
	_, err := e.svc.Decide(e.ctx, req.ID, "allow_once", "", "w")
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.ApprovalAlreadyDecided || ae.Params["decision"] != "cancelled" {
		t.Fatalf("late decision: %v", err)
	}
	if got := e.auditDecisions(approval.AuditQuery{}); !slices.Equal(got, []string{"test_write:cancelled"}) {
		t.Fatalf("audit %v", got)
	}
}

// TestRestartInterruptsAndResumeAsksAgain: a process dies while a request waits; the
// next start marks it interrupted, nothing ran; resume asks again and only the new
// decision runs the tool.
func TestRestartInterruptsAndResumeAsksAgain(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	ctxA, stopA := context.WithCancel(e.ctx)
	defer stopA()
	doneA := e.run(ctxA, nil, call("c1", "test_write", `{"path":"a"}`, "s1"))
	old := nextEvent(t, sub, approval.EventRequested)

	// "Restart": a new authority on the same database, with its own bus and pipeline,
	// while the first one is gone (it never sees a decision).
	bus2 := events.NewBus()
	sub2 := bus2.Subscribe(256)
	defer sub2.Close()
	svc2 := e.open(e.db, bus2)
	pipe2 := tools.NewPipeline(e.reg, tools.Options{Permission: svc2, DataDir: t.TempDir()})
	r, err := svc2.Get(e.ctx, old.ID)
	if err != nil || r.Status != approval.StatusInterrupted {
		t.Fatalf("after restart: %+v %v", r, err)
	}
	list, _ := svc2.ListSession(e.ctx, "s1")
	if len(list.Requests) != 1 || list.Requests[0].Status != approval.StatusInterrupted {
		t.Fatalf("session requests %+v", list.Requests)
	}
	if p, _ := svc2.ListPending(e.ctx); len(p.Requests) != 0 {
		t.Fatalf("interrupted request still pending: %+v", p.Requests)
	}
	// The old waiter learns it was interrupted and does not run the tool.
	if o := waitFor(t, doneA, "old batch")[0]; o.Status == tools.StatusResult || e.write.n.Load() != 0 {
		t.Fatalf("old call: %+v, ran %d", o, e.write.n.Load())
	}
	// An interrupted request cannot be decided, only resumed.
	if _, err := svc2.Decide(e.ctx, old.ID, "allow_once", "", "w"); !apperr.Is(err, apperr.ApprovalInterrupted) {
		t.Fatalf("decide interrupted: %v", err)
	}
	if _, err := svc2.Resume(e.ctx, old.ID, "w", nil); !apperr.Is(err, apperr.ApprovalResumeUnavailable) {
		t.Fatalf("resume without chat: %v", err)
	}
	resumed := make(chan []tools.Outcome, 1)
	resume := func(ctx context.Context, c tools.Call) error {
		if c.ID != "c1" || c.Name != "test_write" || c.MessageID != "m-c1" || c.Scope.SessionID != "s1" {
			t.Errorf("resumed call %+v", c)
		}
		go func() { resumed <- pipe2.RunBatch(context.Background(), []tools.Call{c}, nil) }()
		return nil
	}
	got, err := svc2.Resume(e.ctx, old.ID, "window-a", resume)
	if err != nil || got.Status != approval.StatusResumed {
		t.Fatalf("resume %+v %v", got, err)
	}
	if _, err := svc2.Resume(e.ctx, old.ID, "window-b", resume); !apperr.Is(err, apperr.ApprovalAlreadyDecided) {
		t.Fatalf("second resume: %v", err)
	}
	again := nextEvent(t, sub2, approval.EventRequested)
	if again.ResumedFrom != old.ID || again.CallID != "c1" || e.write.n.Load() != 0 {
		t.Fatalf("asked again: %+v, ran %d", again, e.write.n.Load())
	}
	if _, err := svc2.Decide(e.ctx, again.ID, "allow_once", "", "window-b"); err != nil {
		t.Fatal(err)
	}
	if o := waitFor(t, resumed, "resumed batch")[0]; o.Status != tools.StatusResult || e.write.n.Load() != 1 {
		t.Fatalf("resumed: %+v, ran %d", o, e.write.n.Load())
	}
}

func TestFailedResumeStaysResumable(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	ctxA, stopA := context.WithCancel(e.ctx)
	defer stopA()
	doneA := e.run(ctxA, nil, call("c1", "test_write", `{}`, "s1"))
	old := nextEvent(t, sub, approval.EventRequested)
	svc2 := e.open(e.db, events.NewBus())
	waitFor(t, doneA, "old batch")
	busy := func(context.Context, tools.Call) error {
		return apperr.New(apperr.SessionBusy, "the session is answering")
	}
	if _, err := svc2.Resume(e.ctx, old.ID, "w", busy); !apperr.Is(err, apperr.SessionBusy) {
		t.Fatalf("resume: %v", err)
	}
	if r, _ := svc2.Get(e.ctx, old.ID); r.Status != approval.StatusInterrupted {
		t.Fatalf("status %s", r.Status)
	}
}

func TestCloseInterruptsWhatItWaitsFor(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	done := e.run(e.ctx, nil, call("c1", "test_write", `{}`, "s1"))
	req := nextEvent(t, sub, approval.EventRequested)
	if err := e.svc.Close(); err != nil {
		t.Fatal(err)
	}
	o := waitFor(t, done, "batch")[0]
	if o.Err == nil || o.Err.Code != apperr.ToolPermissionDeny || !strings.Contains(o.Content, "resume") || e.write.n.Load() != 0 {
		t.Fatalf("outcome %+v", o)
	}
	if st := e.status(req.ID); st != approval.StatusInterrupted {
		t.Fatalf("status %s", st)
	}
	// After Close nothing waits: calls that need approval are denied at once.
	if o := waitFor(t, e.run(e.ctx, nil, call("c2", "test_write", `{}`, "s1")), "batch")[0]; o.Err == nil || o.Err.Code != apperr.ToolPermissionDeny {
		t.Fatalf("after close %+v", o)
	}
}

// TestDecisionFromAnotherProcess: a decision written by another process on the same
// database reaches the waiting call.
func TestDeletingTheSessionEndsItsRequests(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	obs := &partObserver{}
	done := e.run(e.ctx, obs, call("c1", "test_write", `{}`, "s1"))
	nextEvent(t, sub, approval.EventRequested)
	if _, err := e.db.ExecContext(e.ctx, "DELETE FROM sessions WHERE id = 's1'"); err != nil {
		t.Fatal(err)
	}
	if o := waitFor(t, done, "batch")[0]; o.Status == tools.StatusResult || e.write.n.Load() != 0 {
		t.Fatalf("outcome %+v", o)
	}
	if _, dec := obs.parts(); len(dec) != 1 || dec[0].CallID != "c1" || dec[0].Status != approval.StatusCancelled {
		t.Fatalf("decided part %+v", dec)
	}
}

func TestDecisionFromAnotherProcess(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	done := e.run(e.ctx, nil, call("c1", "test_write", `{}`, "s1"))
	req := nextEvent(t, sub, approval.EventRequested)
	// A second authority in this test process would interrupt the first one's requests
	// (same pid, another instance), so decide with a plain row update as another Cairn's
	// Decide would commit it.
	if _, err := e.db.ExecContext(e.ctx, `UPDATE approval_requests SET status = 'allowed', decision = 'allow_once',
		window_name = 'cli', decided_at = 1 WHERE id = ? AND status = 'pending'`, req.ID); err != nil {
		t.Fatal(err)
	}
	if o := waitFor(t, done, "batch")[0]; o.Status != tools.StatusResult || e.write.n.Load() != 1 {
		t.Fatalf("outcome %+v", o)
	}
}

func TestSeveralRequestsWaitAtOnce(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	done := e.run(e.ctx, nil, call("c1", "test_par_a", `{}`, "s1"), call("c2", "test_par_b", `{}`, "s1"))
	a, b := nextEvent(t, sub, approval.EventRequested), nextEvent(t, sub, approval.EventRequested)
	if p, _ := e.svc.PendingForSession(e.ctx, "s1"); len(p) != 2 {
		t.Fatalf("pending %d", len(p))
	}
	if _, err := e.svc.Decide(e.ctx, a.ID, "allow_once", "", "w"); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.svc.PendingForSession(e.ctx, "s1"); len(p) != 1 || p[0].ID != b.ID {
		t.Fatalf("pending after one decision %+v", p)
	}
	if _, err := e.svc.Decide(e.ctx, b.ID, "deny", "", "w"); err != nil {
		t.Fatal(err)
	}
	outs := waitFor(t, done, "batch")
	statuses := []tools.Status{outs[0].Status, outs[1].Status}
	want := []tools.Status{tools.StatusResult, tools.StatusError}
	if a.CallID == "c2" {
		want = []tools.Status{tools.StatusError, tools.StatusResult}
	}
	if !slices.Equal(statuses, want) || e.par.n.Load() != 1 {
		t.Fatalf("outcomes %v, ran %d", statuses, e.par.n.Load())
	}
	if p, _ := e.svc.PendingForSession(e.ctx, "s1"); len(p) != 0 {
		t.Fatalf("pending at the end %+v", p)
	}
}

func TestModesThroughThePipeline(t *testing.T) {
	e := newEnv(t)
	// Plan: writes are refused with a message for the model, without a request.
	if m, err := e.svc.SetSessionMode(e.ctx, "s1", "plan"); err != nil || m.Mode != permission.ModePlan || !m.Own {
		t.Fatalf("%+v %v", m, err)
	}
	o := waitFor(t, e.run(e.ctx, nil, call("c1", "test_write", `{}`, "s1")), "batch")[0]
	if o.Err == nil || o.Err.Code != apperr.ToolPermissionDeny || !strings.Contains(o.Content, "plan mode") {
		t.Fatalf("plan: %+v", o)
	}
	if o := waitFor(t, e.run(e.ctx, nil, call("c2", "test_echo", `{"text":"x"}`, "s1")), "batch")[0]; o.Status != tools.StatusResult {
		t.Fatalf("plan read-only: %+v", o)
	}
	// Back to the default setting, which is bypass: nothing asks, deny rules still hold.
	e.settings.set(approval.SettingDefaultMode, "bypassPermissions")
	if m, err := e.svc.SetSessionMode(e.ctx, "s1", ""); err != nil || m.Mode != permission.ModeBypass || m.Own {
		t.Fatalf("%+v %v", m, err)
	}
	if o := waitFor(t, e.run(e.ctx, nil, call("c3", "test_write", `{}`, "s1")), "batch")[0]; o.Status != tools.StatusResult {
		t.Fatalf("bypass: %+v", o)
	}
	if _, err := e.svc.SaveRule(e.ctx, permission.Rule{Behavior: permission.Deny, Tool: "test_*"}); err != nil {
		t.Fatal(err)
	}
	o = waitFor(t, e.run(e.ctx, nil, call("c4", "test_write", `{}`, "s1")), "batch")[0]
	if o.Err == nil || o.Err.Code != apperr.ToolPermissionDeny || !strings.Contains(o.Content, "rule") {
		t.Fatalf("deny in bypass: %+v", o)
	}
	if _, err := e.svc.SetSessionMode(e.ctx, "s1", "yolo"); !apperr.Is(err, apperr.PermissionModeInvalid) {
		t.Fatalf("bad mode: %v", err)
	}
	if _, err := e.svc.SetSessionMode(e.ctx, "nope", "plan"); !apperr.Is(err, apperr.SessionNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	if p, _ := e.svc.ListPending(e.ctx); len(p.Requests) != 0 {
		t.Fatalf("requests %+v", p.Requests)
	}
}

func TestDecideRejectsBadInput(t *testing.T) {
	e := newEnv(t)
	if _, err := e.svc.Decide(e.ctx, "nope", "allow_once", "", "w"); !apperr.Is(err, apperr.ApprovalNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := e.svc.Decide(e.ctx, "nope", "maybe", "", "w"); !apperr.Is(err, apperr.ApprovalDecisionInvalid) {
		t.Fatalf("bad choice: %v", err)
	}
}

// TestAskWithoutPreview: a preview that fails leaves the dialog the change the tool's
// touches say; the request still asks.
func TestAskWithoutPreview(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(256)
	defer sub.Close()
	done := e.run(e.ctx, &partObserver{}, call("c1", "test_write", `{"path":"broken"}`, "s1"))
	req := nextEvent(t, sub, approval.EventRequested)
	if len(req.Edits) != 1 || req.Edits[0].Path != "broken" || req.Edits[0].Diff != "" {
		t.Fatalf("edits %+v", req.Edits)
	}
	if _, err := e.svc.Decide(e.ctx, req.ID, "deny", "", "window-a"); err != nil {
		t.Fatal(err)
	}
	if o := waitFor(t, done, "batch")[0]; o.Status == tools.StatusResult {
		t.Fatalf("a denied call ran: %+v", o)
	}
}
