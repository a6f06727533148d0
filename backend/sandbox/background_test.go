package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tasks"
	"github.com/cairn-app/cairn/backend/tools"
)

// bgRig runs sandbox_bash and the task tools through one pipeline, the commands on the
// in-process engine, the tasks on a real tasks.Service.
type bgRig struct {
	*rig
	tasks *tasks.Service
}

func newBackgroundRig(t *testing.T) *bgRig {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.ExecContext(ctx, `INSERT INTO sessions (id, kind, created_at, updated_at) VALUES ('s1', 'task', 0, 0), ('c1', 'chat', 0, 0)`); err != nil {
		t.Fatal(err)
	}
	ts, err := tasks.New(ctx, tasks.Config{Dir: filepath.Join(dir, "tasks")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	svc := NewService(fixedLevel{level: LevelReduced}, NewWorkspaces(db.DB, dir), nil, ts)
	sandboxTools, err := Capability().ToolEntries(svc.Tools())
	if err != nil {
		t.Fatal(err)
	}
	taskTools, err := tasks.Capability().ToolEntries(ts.Tools())
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(append(sandboxTools, taskTools...)...); err != nil {
		t.Fatal(err)
	}
	ws, err := svc.Workspaces().Ensure(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, pipe: tools.NewPipeline(reg, tools.Options{DataDir: dir}), svc: svc, ws: ws,
		scope: tools.Scope{SessionID: "s1", SessionKind: "task", Toolsets: []string{Name}, Model: tools.ModelCaps{SupportsTools: true}}}
	return &bgRig{rig: r, tasks: ts}
}

// callAs is a call of the rig's pipeline from session.
func (r *bgRig) callAs(session, name string, args any) tools.Outcome {
	r.t.Helper()
	b, _ := json.Marshal(args)
	scope := r.scope
	scope.SessionID = session
	return r.pipe.RunBatch(context.Background(), []tools.Call{{ID: "c", Name: name, Arguments: string(b), SessionID: session, Scope: scope}}, nil)[0]
}

func (r *bgRig) start(command string) string {
	r.t.Helper()
	o := r.call(BashTool, map[string]any{"command": command, "run_in_background": true}, nil)
	id, _ := r.display(o)["taskId"].(string)
	if o.Status != tools.StatusResult || !strings.HasPrefix(id, "task_") || !strings.Contains(o.Content, "task_output") {
		r.t.Fatalf("start: %s %q %s", o.Status, o.Content, o.Display)
	}
	return id
}

// output is the output a task_output call returned (its display's text).
func (r *bgRig) output(o tools.Outcome) string {
	r.t.Helper()
	text, _ := r.display(o)["text"].(string)
	return text
}

// TestBackgroundBashPolledWithTaskOutput: run_in_background returns a task id while the
// command runs on; task_output gives what is new each time and, waiting, its end; another
// session's call cannot read or stop it.
func TestBackgroundBashPolledWithTaskOutput(t *testing.T) {
	r := newBackgroundRig(t)
	began := time.Now()
	id := r.start("echo first; while [ ! -e ready ]; do sleep 0.05; done; echo second; echo oops >&2; exit 3")
	if time.Since(began) > 5*time.Second {
		t.Fatalf("the call waited for the command: %s", time.Since(began))
	}
	var o tools.Outcome
	for deadline := time.Now().Add(10 * time.Second); o.Content == "" || !strings.Contains(r.output(o), "first"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("first read: %s %q", o.Status, o.Content)
		}
		o = r.call(tasks.OutputTool, map[string]any{"id": id}, nil)
	}
	if o.Status != tools.StatusResult || !strings.Contains(o.Content, "running") || strings.Contains(r.output(o), "second") {
		t.Fatalf("first read: %s %q", o.Status, o.Content)
	}
	for _, s := range []string{"c1", "s2"} {
		for _, tool := range []string{tasks.OutputTool, tasks.StopTool} {
			if other := r.callAs(s, tool, map[string]any{"id": id}); other.Status != tools.StatusError || !strings.Contains(other.Content, "no background task") {
				t.Fatalf("%s from session %s: %s %q", tool, s, other.Status, other.Content)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(r.ws, "ready"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	o = r.call(tasks.OutputTool, map[string]any{"id": id, "wait_seconds": 20}, nil)
	if out := r.output(o); o.Status != tools.StatusResult || !strings.Contains(o.Content, "failed (exit code 3)") || !strings.Contains(out, "second") ||
		!strings.Contains(out, "oops") || strings.Contains(out, "first") || !strings.Contains(o.Content, "Output since the last read:\n"+strings.TrimRight(out, "\n")) {
		t.Fatalf("read after the end: %s %q", o.Status, o.Content)
	}
	if o = r.call(tasks.OutputTool, map[string]any{"id": id}, nil); !strings.Contains(o.Content, "No new output") {
		t.Fatalf("read again: %q", o.Content)
	}
	if u := r.tasks.Unreported("s1"); len(u) != 0 {
		t.Fatalf("the model read the end, yet it is unreported: %+v", u)
	}
}
