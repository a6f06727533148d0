package chat

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// TestDeletingASessionForgetsItsToolState runs the real pipeline: the model inspects a
// tool and calls it, its large result is spilled under the session's folder; deleting
// the session removes that folder and the session's entry in the inspect ledger, and
// leaves another session's alone.
func TestDeletingASessionForgetsItsToolState(t *testing.T) {
	reg := tools.NewRegistry()
	huge := toolstest.Huge(tools.MCPName("big-1", "Big", "dump"), 300_000)
	huge.Namespace, huge.NamespaceLabel = "mcp:big-1", "Big"
	if err := reg.Register(huge); err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	pipe := tools.NewPipeline(reg, tools.Options{DataDir: dataDir})
	h := newHarness(t, pipe)
	use := func() Session {
		sess := h.session(SessionInput{Toolsets: []string{"mcp"}})
		h.srv.Enqueue(llmtest.Reply{ToolCalls: []llmtest.ToolCall{
			{Name: "tool_inspect", Arguments: `{"name":"` + huge.Name + `"}`},
			{Name: huge.Name, Arguments: `{}`},
		}}, llmtest.Reply{Text: "done"})
		_, snap := h.send(sess.ID, "dump it")
		if a := last(snap); a.Status != MessageComplete {
			t.Fatalf("answer %s: %+v", a.Status, a.Error)
		}
		if !pipe.Inspected(sess.ID, huge.Name) {
			t.Fatal("setup: the inspect was not recorded")
		}
		if entries, err := os.ReadDir(filepath.Join(dataDir, "tool-results", sess.ID)); err != nil || len(entries) != 1 {
			t.Fatalf("setup: spilled results %v, %v", entries, err)
		}
		return sess
	}
	kept, gone := use(), use()

	if err := h.svc.DeleteSession(context.Background(), gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "tool-results", gone.ID)); !os.IsNotExist(err) {
		t.Fatalf("the deleted session's results are still on disk: %v", err)
	}
	if pipe.Inspected(gone.ID, huge.Name) {
		t.Fatal("the deleted session is still in the inspect ledger")
	}
	if !pipe.Inspected(kept.ID, huge.Name) {
		t.Fatal("deleting one session cleared another's ledger")
	}
	if _, err := os.Stat(filepath.Join(dataDir, "tool-results", kept.ID)); err != nil {
		t.Fatalf("deleting one session removed another's results: %v", err)
	}
}

// TestDeleteTellsTheRunnerOnce: the runner hears of every deleted session, and of
// nothing for a delete that failed.
func TestDeleteTellsTheRunnerOnce(t *testing.T) {
	runner := newFakeRunner(func(ctx context.Context, c tools.Call) tools.Outcome { return resultOf("x") })
	h := newHarness(t, runner)
	sess := h.session(SessionInput{})
	ctx := context.Background()
	if err := h.svc.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if err := h.svc.DeleteSession(ctx, sess.ID); err == nil {
		t.Fatal("deleting twice succeeded")
	}
	runner.mu.Lock()
	defer runner.mu.Unlock()
	if len(runner.forgotten) != 1 || runner.forgotten[0] != sess.ID {
		t.Fatalf("forgotten = %v", runner.forgotten)
	}
}

// TestDeleteForgetsTheSessionsTopic: a deleted conversation's topic leaves the bus, which
// would otherwise keep a sequence number for every conversation ever made (found by
// bench/soak.sh: the bus's topics grew by one per conversation all hour).
func TestDeleteForgetsTheSessionsTopic(t *testing.T) {
	h := newHarness(t, nil)
	before := h.bus.Topics()
	sess := h.session(SessionInput{})
	h.srv.Enqueue(llmtest.Reply{Text: "hi"})
	h.send(sess.ID, "hello")
	if got := h.bus.Topics(); got <= before {
		t.Fatalf("setup: topics %d after a conversation, %d before", got, before)
	}
	if err := h.svc.DeleteSession(context.Background(), sess.ID); err != nil {
		t.Fatal(err)
	}
	if h.bus.Seq(events.SessionTopic(sess.ID)) != 0 {
		t.Fatal("the deleted session's topic still has a seq")
	}
	if got := h.bus.Topics(); got > before+1 { // +1: the sessions topic itself
		t.Fatalf("topics %d after the delete, %d before the conversation", got, before)
	}
}
