package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/sandbox"
	"github.com/cairn-app/cairn/backend/tasks"
)

// TestBackgroundTasksThroughTheWholeBackend: the model starts a command with
// run_in_background (asked like any command), polls it with task_output, and is told in
// its next turn of a second task that ended unread: a notice status part in the window
// and a user message in this and every later request, once; deleting the session stops
// and forgets its tasks.
func TestBackgroundTasksThroughTheWholeBackend(t *testing.T) {
	s, srv, sess := taskBackend(t, strongLocal{})
	ctx := context.Background()
	end := turn(t, s, srv, sess.ID, "b1", sandbox.BashTool, map[string]any{"command": "echo from-the-background", "run_in_background": true}, approval.AllowOnce)
	id, _ := displayOf(t, end)["taskId"].(string)
	if end.Type != chat.PartToolResult || !strings.HasPrefix(id, "task_") {
		t.Fatalf("start: %s %+v", end.Type, end.Tool)
	}
	end = turn(t, s, srv, sess.ID, "o1", tasks.OutputTool, map[string]any{"id": id, "wait_seconds": 20}, "")
	if end.Type != chat.PartToolResult || displayOf(t, end)["text"] != "from-the-background\n" || !strings.Contains(end.Tool.Content, "done (exit code 0)") {
		t.Fatalf("task_output: %s %q", end.Type, end.Tool.Content)
	}

	// The second command ends only once this turn is over, so the model hears of it in
	// the next one.
	end = turn(t, s, srv, sess.ID, "b2", sandbox.BashTool, map[string]any{"command": "while [ ! -e go ]; do sleep 0.05; done; exit 4", "run_in_background": true}, approval.AllowOnce)
	second, _ := displayOf(t, end)["taskId"].(string)
	ws, err := s.Sandbox().Workspaces().Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws.Path, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if tk, err := s.Tasks().Get(sess.ID, second); err == nil && tk.Ended() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second task did not end")
		}
	}
	notice := "[Cairn] Background task " + second + " (bash: while [ ! -e go ]; do sleep 0.05; done; exit 4) ended: failed (exit code 4)."
	for i := range 2 {
		srv.Enqueue(llmtest.Reply{Text: "noted"})
		if _, err := s.Chat.SendMessage(ctx, sess.ID, "and now?"); err != nil {
			t.Fatal(err)
		}
		snap := waitIdle(t, s, sess.ID)
		msgs := srv.Requests()[len(srv.Requests())-1].Body.Messages
		count, first := 0, ""
		for _, m := range msgs {
			if m.Role == "user" && strings.HasPrefix(m.Content, "[Cairn] Background task "+second) {
				count++
				first = m.Content
			}
		}
		if count != 1 || !strings.HasPrefix(first, notice) {
			t.Fatalf("request %d tells the model %d times (%q), want once %q", i, count, first, notice)
		}
		if i == 0 {
			last := snap.Messages[len(snap.Messages)-1]
			if len(last.Parts) == 0 || last.Parts[0].Type != chat.PartStatus || last.Parts[0].Status.Kind != chat.StatusNotice ||
				last.Parts[0].Status.Notice.ID != second || last.Parts[0].Status.Notice.State != string(tasks.StateFailed) {
				t.Fatalf("the answer's parts: %+v", last.Parts)
			}
		}
	}
	if l := s.Tasks().List(sess.ID); len(l.Tasks) != 2 || l.Tasks[0].ID != second {
		t.Fatalf("list %+v", l.Tasks)
	}

	end = turn(t, s, srv, sess.ID, "b3", sandbox.BashTool, map[string]any{"command": "sleep 300", "run_in_background": true}, approval.AllowOnce)
	third, _ := displayOf(t, end)["taskId"].(string)
	if err := s.Chat.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := s.Tasks().Get(sess.ID, third); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the deleted session's task is still kept")
		}
	}
}
