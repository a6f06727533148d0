package service

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/tools"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// gatedTool counts its runs; it needs approval, as a write or a shell command would.
func gatedTool(runs *atomic.Int32) tools.Entry {
	return tools.Entry{
		Name: "file_write", Namespace: "file", Description: "Write a file",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		Approval:    tools.ApprovalAsk,
		Applies:     func(tools.Scope) bool { return true },
		Execute: func(_ context.Context, args json.RawMessage, _ func(tools.Progress)) (tools.Result, error) {
			runs.Add(1)
			return tools.Result{Content: "wrote " + string(args)}, nil
		},
	}
}

// withEverything opens the services on a new data directory with a real server-everything
// (from npm) saved and enabled.
func withEverything(t *testing.T, runs *atomic.Int32) (*Services, mcp.ServerView) {
	t.Helper()
	mcptest.NeedNPM(t)
	s := open(t, t.TempDir(), runs)
	t.Cleanup(func() { s.Close() })
	view, err := s.MCP.Save(context.Background(), mcp.Server{Name: "everything", Transport: mcp.TransportStdio, Command: mcptest.Node(t),
		Args: []string{mcptest.Everything(), "stdio"}, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	return s, view
}

func open(t *testing.T, dir string, runs *atomic.Int32) *Services {
	t.Helper()
	s, err := Open(context.Background(), Options{DataDir: dir, SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Tools.Register(gatedTool(runs)); err != nil {
		t.Fatal(err)
	}
	return s
}

func waitPending(t *testing.T, s *Services, sessionID string) approval.Request {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		reqs, err := s.Approval.PendingForSession(context.Background(), sessionID)
		if err != nil {
			t.Fatal(err)
		}
		if len(reqs) == 1 {
			return reqs[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no pending approval appeared")
	return approval.Request{}
}

func waitIdle(t testing.TB, s *Services, sessionID string) chat.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Chat.Wait(ctx, sessionID); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Chat.GetSession(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestApprovalThroughTheWholeBackend wires chat, the tool pipeline and approval as the
// app does: the model calls a gated tool, the session waits for a decision, the tool runs
// once after "allow once", and the model gets the result.
func TestApprovalThroughTheWholeBackend(t *testing.T) {
	srv := llmtest.Start(t)
	var runs atomic.Int32
	s := open(t, t.TempDir(), &runs)
	defer s.Close()
	ctx := context.Background()
	sess := fileSession(t, s, srv)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "file_write", Arguments: `{"path":"notes.txt"}`}}},
		llmtest.Reply{Text: "Done."},
	)
	if _, err := s.Chat.SendMessage(ctx, sess.ID, "write it"); err != nil {
		t.Fatal(err)
	}
	req := waitPending(t, s, sess.ID)
	// The session's state follows the stored request (the chat loop hears of it next).
	deadline := time.Now().Add(10 * time.Second)
	for s.Chat.State(sess.ID) != chat.StateAwaitingApproval {
		if time.Now().After(deadline) {
			t.Fatalf("state = %s, want awaiting-approval", s.Chat.State(sess.ID))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if runs.Load() != 0 {
		t.Fatal("the tool ran before it was approved")
	}
	if _, err := s.Approval.Decide(ctx, req.ID, "allow_once", "", "window-a"); err != nil {
		t.Fatal(err)
	}
	snap := waitIdle(t, s, sess.ID)
	if runs.Load() != 1 {
		t.Fatalf("tool ran %d times", runs.Load())
	}
	a := snap.Messages[len(snap.Messages)-1]
	if a.Status != chat.MessageComplete || a.Parts[len(a.Parts)-1].Text != "Done." {
		t.Fatalf("answer = %+v", a)
	}
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Body.LastMessage().Content; got != `wrote {"path":"notes.txt"}` {
		t.Fatalf("model saw %q", got)
	}
}

// TestPendingApprovalSurvivesRestart: the process ends while a call waits; after a
// restart the request is interrupted, nothing ran, and resume asks again before running.
func TestPendingApprovalSurvivesRestart(t *testing.T) {
	srv := llmtest.Start(t)
	dir := t.TempDir()
	var runs atomic.Int32
	s := open(t, dir, &runs)
	ctx := context.Background()
	sess := fileSession(t, s, srv)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "file_write", Arguments: `{"path":"a.txt"}`}}})
	if _, err := s.Chat.SendMessage(ctx, sess.ID, "write a"); err != nil {
		t.Fatal(err)
	}
	req := waitPending(t, s, sess.ID)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, dir, &runs)
	defer s.Close()
	got, err := s.Approval.Get(ctx, req.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != approval.StatusInterrupted || runs.Load() != 0 {
		t.Fatalf("after restart: status %s, runs %d", got.Status, runs.Load())
	}
	srv.Enqueue(llmtest.Reply{Text: "Written after all."})
	if _, err := s.ResumeApproval(ctx, req.ID, "window-b"); err != nil {
		t.Fatal(err)
	}
	again := waitPending(t, s, sess.ID)
	if again.ID == req.ID || runs.Load() != 0 {
		t.Fatalf("resume did not ask again: %+v, runs %d", again, runs.Load())
	}
	if _, err := s.Approval.Decide(ctx, again.ID, "allow_once", "", "window-b"); err != nil {
		t.Fatal(err)
	}
	snap := waitIdle(t, s, sess.ID)
	if runs.Load() != 1 {
		t.Fatalf("tool ran %d times", runs.Load())
	}
	a := snap.Messages[len(snap.Messages)-1]
	if a.Status != chat.MessageComplete || a.Parts[len(a.Parts)-1].Text != "Written after all." {
		t.Fatalf("resumed answer = %+v", a)
	}
}

// TestDisabledToolIsNotOffered: a tool the user turned off in Settings → Tools is left
// out of the model's request, and turning it back on offers it again.
func TestDisabledToolIsNotOffered(t *testing.T) {
	srv := llmtest.Start(t)
	var runs atomic.Int32
	s := open(t, t.TempDir(), &runs)
	defer s.Close()
	ctx := context.Background()
	sess := fileSession(t, s, srv)
	ask := func() []string {
		srv.Enqueue(llmtest.Reply{Text: "ok"})
		if _, err := s.Chat.SendMessage(ctx, sess.ID, "hi"); err != nil {
			t.Fatal(err)
		}
		waitIdle(t, s, sess.ID)
		reqs := srv.Requests()
		// The file toolset's own tools (file_read, file_search) come along; only the
		// test's gated tool is switched here.
		return slices.DeleteFunc(reqs[len(reqs)-1].Body.ToolNames(), func(n string) bool { return n != "file_write" })
	}
	if got := ask(); len(got) != 1 || got[0] != "file_write" {
		t.Fatalf("tools offered = %v", got)
	}
	if err := s.ToolPrefs.SetEnabled(ctx, "file_write", false); err != nil {
		t.Fatal(err)
	}
	snap, err := s.ToolPrefs.Snapshot(ctx, s.Tools)
	if err != nil || snap.Seq == 0 {
		t.Fatalf("snapshot = %+v, %v", snap, err)
	}
	// Other capabilities' tools are listed too (web_fetch); only file_write was turned off.
	listed := false
	for _, tool := range snap.Tools {
		listed = listed || tool.Name == "file_write"
		if tool.Enabled == (tool.Name == "file_write") {
			t.Fatalf("snapshot = %+v", snap)
		}
	}
	if !listed {
		t.Fatalf("file_write not listed: %+v", snap)
	}
	if got := ask(); len(got) != 0 {
		t.Fatalf("disabled tool still offered: %v", got)
	}
	if err := s.ToolPrefs.SetEnabled(ctx, "file_write", true); err != nil {
		t.Fatal(err)
	}
	if got := ask(); len(got) != 1 {
		t.Fatalf("re-enabled tool not offered: %v", got)
	}
}

// fileSession adds a provider on the fake model server and a session with the file
// toolset, where gatedTool lives.
func fileSession(t *testing.T, s *Services, srv *llmtest.Server) chat.Session {
	t.Helper()
	ctx := context.Background()
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-test-000000",
		Models: []llm.Model{{ID: "m", SupportsTools: true, ContextWindow: 32000}}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Chat.CreateSession(ctx, chat.SessionInput{ProviderID: p.ID, Model: "m", Toolsets: []string{"file"}})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// TestWarmerWaitsForTheFirstWindow: StartBackground leaves MCP servers alone until a
// window is ready (so their processes do not compete with the window's start), and
// starts them anyway when no window comes within WarmAfter.
func TestWarmerWaitsForTheFirstWindow(t *testing.T) {
	builtin := mcp.Builtin{ID: "clock", Name: "Clock", New: func() *mcpsdk.Server {
		return mcpsdk.NewServer(&mcpsdk.Implementation{Name: "clock", Version: "1"}, nil)
	}}
	connected := func(s *Services) bool {
		v, err := s.MCP.View(context.Background(), "clock")
		return err == nil && v.Status.State == mcp.StateReady
	}
	eventually := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting: %s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	cases := []struct {
		name      string
		warmAfter time.Duration
		ready     bool
	}{
		{"the first window starts it", time.Hour, true},
		{"no window: it starts after WarmAfter", 100 * time.Millisecond, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(context.Background(), Options{DataDir: t.TempDir(), SecretsBackend: "file", WarmAfter: tc.warmAfter})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.MCP.RegisterBuiltin(context.Background(), builtin); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s.StartBackground(ctx)
			if tc.ready {
				time.Sleep(200 * time.Millisecond) // long enough for a warmer that did not wait
				if connected(s) {
					t.Fatal("the warmer connected before any window was ready")
				}
				s.FrontendReady()
			}
			eventually("the built-in server connected", func() bool { return connected(s) })
		})
	}
}
