package service

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/sandbox"
)

// strongLocal is the in-process engine reporting the strong level, so the tools run as
// they do under a working sandbox (the confinement itself is tested in package confine).
type strongLocal struct{ sandbox.Local }

func (strongLocal) Status(context.Context) sandbox.Status {
	return sandbox.Status{Level: sandbox.LevelStrong}
}

func (e strongLocal) Start(ctx context.Context, p sandbox.Place, argv []string, stdin io.Reader) (sandbox.Process, error) {
	proc, err := e.Local.Start(ctx, p, argv, stdin)
	if err != nil {
		return nil, err
	}
	return strongProc{proc}, nil
}

type strongProc struct{ sandbox.Process }

func (strongProc) Level() sandbox.Level { return sandbox.LevelStrong }

// taskBackend opens the services with the sandbox capability on engine, a fake model and
// a task session.
func taskBackend(t *testing.T, engine sandbox.Engine) (*Services, *llmtest.Server, chat.Session) {
	t.Helper()
	caps := capability.List{}
	for _, c := range Capabilities() {
		if c.Name == sandbox.Name {
			c = sandbox.CapabilityWith(engine)
		}
		caps = append(caps, c)
	}
	s, err := Open(context.Background(), Options{DataDir: t.TempDir(), SecretsBackend: "file", Capabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	srv := llmtest.Start(t)
	ctx := context.Background()
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-test-000000",
		Models: []llm.Model{{ID: "m", SupportsTools: true, ContextWindow: 64000}}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Chat.CreateSession(ctx, chat.SessionInput{Kind: chat.KindTask, ProviderID: p.ID, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return s, srv, sess
}

// turn sends a message whose answer is one call of tool, decides each approval it asks
// with choice ("" expects none) and returns the call's end part.
func turn(t *testing.T, s *Services, srv *llmtest.Server, sessID, id, tool string, args any, choice approval.Choice) chat.Part {
	t.Helper()
	b, _ := json.Marshal(args)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: id, Name: tool, Arguments: string(b)}}}, llmtest.Reply{Text: "ok"})
	if _, err := s.Chat.SendMessage(context.Background(), sessID, "go"); err != nil {
		t.Fatal(err)
	}
	if choice != "" {
		req := waitPending(t, s, sessID)
		if req.Tool != tool {
			t.Fatalf("asked about %s, want %s", req.Tool, tool)
		}
		if _, err := s.Approval.Decide(context.Background(), req.ID, string(choice), "", "test"); err != nil {
			t.Fatal(err)
		}
	}
	snap := waitIdle(t, s, sessID)
	for _, part := range snap.Messages[len(snap.Messages)-1].Parts {
		if part.Tool != nil && part.Tool.CallID == id && (part.Type == chat.PartToolResult || part.Type == chat.PartToolError || part.Type == chat.PartToolStopped) {
			return part
		}
	}
	t.Fatalf("no end of call %s", id)
	return chat.Part{}
}

func displayOf(t *testing.T, p chat.Part) map[string]any {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal(p.Tool.Display, &d); err != nil {
		t.Fatalf("display %s: %v", p.Tool.Display, err)
	}
	return d
}

// TestTaskToolsThroughTheWholeBackend: in a task session the model writes a file (asked,
// the dialog gets the change as an edit), edits it (asked), reads it (not asked), runs it
// with sandbox_bash (asked; "always allow" makes a command rule, so the same command runs
// at once next time); every result records the level, and relative paths are the
// session's workspace to the approval service.
func TestTaskToolsThroughTheWholeBackend(t *testing.T) {
	s, srv, sess := taskBackend(t, strongLocal{})
	ctx := context.Background()
	ws, err := s.Sandbox().Workspaces().Get(ctx, sess.ID)
	if err != nil || !ws.Made || !strings.HasPrefix(ws.Path, s.DataDir+"-workspaces") {
		t.Fatalf("workspace %+v %v", ws, err)
	}
	srv.Enqueue(llmtest.Reply{Text: "hi"})
	if _, err := s.Chat.SendMessage(ctx, sess.ID, "which tools?"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, s, sess.ID)
	names := srv.Requests()[0].Body.ToolNames()
	for _, n := range []string{sandbox.BashTool, sandbox.ReadTool, sandbox.WriteTool, sandbox.EditTool, sandbox.GrepTool, sandbox.ListTool, sandbox.FindTool} {
		if !slices.Contains(names, n) {
			t.Fatalf("a task session is not offered %s: %v", n, names)
		}
	}

	end := turn(t, s, srv, sess.ID, "w1", sandbox.WriteTool, map[string]any{"path": "hello.sh", "content": "echo hello from the sandbox\n"}, approval.AllowOnce)
	if end.Type != chat.PartToolResult || displayOf(t, end)["level"] != "strong" {
		t.Fatalf("write: %s %+v", end.Type, end.Tool)
	}
	end = turn(t, s, srv, sess.ID, "e1", sandbox.EditTool, map[string]any{"path": "hello.sh", "old_string": "hello", "new_string": "hi"}, approval.AllowOnce)
	if end.Type != chat.PartToolResult {
		t.Fatalf("edit: %+v", end.Tool)
	}
	if b, _ := os.ReadFile(filepath.Join(ws.Path, "hello.sh")); string(b) != "echo hi from the sandbox\n" {
		t.Fatalf("file holds %q", b)
	}
	end = turn(t, s, srv, sess.ID, "r1", sandbox.ReadTool, map[string]any{"path": "hello.sh"}, "")
	if got := srv.Requests()[len(srv.Requests())-1].Body.LastMessage().Content; !strings.Contains(got, "     1\techo hi from the sandbox") {
		t.Fatalf("model read %q", got)
	}
	for i, choice := range []approval.Choice{approval.AllowAlways, ""} {
		end = turn(t, s, srv, sess.ID, "b"+string(rune('1'+i)), sandbox.BashTool, map[string]any{"command": "sh hello.sh"}, choice)
		d := displayOf(t, end)
		if end.Type != chat.PartToolResult || d["stdout"] != "hi from the sandbox\n" || d["level"] != "strong" || d["exitCode"] != 0.0 {
			t.Fatalf("bash %d: %+v", i, d)
		}
	}
	audit, err := s.Approval.ListRules(ctx)
	if err != nil || !slices.ContainsFunc(audit.Rules, func(r permission.Rule) bool { return r.Command == "sh hello.sh" && r.Tool == sandbox.BashTool }) {
		t.Fatalf("rules %+v %v", audit, err)
	}
}

// TestTaskApprovalSeesTheWorkspace: the approval request of a relative write names the
// path inside the session's workspace, and acceptEdits lets it pass there.
func TestTaskApprovalSeesTheWorkspace(t *testing.T) {
	s, srv, sess := taskBackend(t, strongLocal{})
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := s.Sandbox().Workspaces().Set(ctx, sess.ID, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Approval.SetSessionMode(ctx, sess.ID, string(permission.ModeAcceptEdits)); err != nil {
		t.Fatal(err)
	}
	end := turn(t, s, srv, sess.ID, "w1", sandbox.WriteTool, map[string]any{"path": "notes/a.md", "content": "# A\n"}, "")
	if end.Type != chat.PartToolResult {
		t.Fatalf("acceptEdits did not let an edit inside the workspace pass: %+v", end.Tool)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if b, _ := os.ReadFile(filepath.Join(real, "notes/a.md")); string(b) != "# A\n" {
		t.Fatalf("file holds %q", b)
	}
}

// TestTaskToolsWithoutASandbox: where no sandbox works the tools refuse, saying how to
// run them anyway; with "run unsandboxed" on, reads run and every write and command asks,
// even one an allow rule covers, and the result says it ran with none.
func TestTaskToolsWithoutASandbox(t *testing.T) {
	s, srv, sess := taskBackend(t, sandbox.Local{})
	ctx := context.Background()
	end := turn(t, s, srv, sess.ID, "l1", sandbox.ListTool, map[string]any{}, "")
	if end.Type != chat.PartToolError || end.Tool.Error == nil || end.Tool.Error.Code != apperr.SandboxUnavailable {
		t.Fatalf("no sandbox: %+v", end.Tool)
	}
	if _, err := s.Settings.Set(ctx, sandbox.SettingUnsandboxed, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Approval.SaveRule(ctx, permission.Rule{Behavior: permission.Allow, Tool: sandbox.BashTool, Command: "echo"}); err != nil {
		t.Fatal(err)
	}
	end = turn(t, s, srv, sess.ID, "l2", sandbox.ListTool, map[string]any{}, "")
	if end.Type != chat.PartToolResult || displayOf(t, end)["level"] != "none" {
		t.Fatalf("ls unsandboxed: %+v", end.Tool)
	}
	end = turn(t, s, srv, sess.ID, "b1", sandbox.BashTool, map[string]any{"command": "echo unconfined"}, approval.AllowOnce)
	if d := displayOf(t, end); d["stdout"] != "unconfined\n" || d["level"] != "none" {
		t.Fatalf("bash unsandboxed: %+v", d)
	}
}

// TestWorkspaceChangeIsAnnounced: choosing a task session's workspace is published on the
// session's topic, so every window's header shows the new folder.
func TestWorkspaceChangeIsAnnounced(t *testing.T) {
	s, _, sess := taskBackend(t, strongLocal{})
	sub := s.Bus.Subscribe(64)
	t.Cleanup(sub.Close)
	dir := t.TempDir()
	if _, err := s.SetSessionWorkspace(context.Background(), sess.ID, dir); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-sub.C:
			if ev.Topic != events.SessionTopic(sess.ID) || ev.Type != sandbox.EventWorkspace {
				continue
			}
			var ws sandbox.Workspace
			if err := json.Unmarshal(ev.Data, &ws); err != nil || ws.Path != real || ws.Made || ws.SessionID != sess.ID {
				t.Fatalf("announced %s: %v", ev.Data, err)
			}
			return
		case <-deadline:
			t.Fatal("the workspace change was not announced")
		}
	}
}
