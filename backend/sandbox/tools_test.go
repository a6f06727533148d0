package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
)

// rig runs the task tools through the tool pipeline on the in-process engine, in one task
// session's workspace.
type rig struct {
	t     *testing.T
	pipe  *tools.Pipeline
	svc   *Service
	ws    string
	scope tools.Scope
}

type fixedLevel struct {
	Local
	level Level
}

func (f fixedLevel) Status(context.Context) Status { return Status{Level: f.level} }

func newRig(t *testing.T) *rig {
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
	svc := NewService(fixedLevel{level: LevelReduced}, NewWorkspaces(db.DB, dir), nil, nil)
	entries, err := Capability().ToolEntries(svc.Tools())
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(entries...); err != nil {
		t.Fatal(err)
	}
	ws, err := svc.Workspaces().Ensure(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	return &rig{t: t, pipe: tools.NewPipeline(reg, tools.Options{DataDir: dir}), svc: svc, ws: ws,
		scope: tools.Scope{SessionID: "s1", SessionKind: "task", Toolsets: []string{Name}, Model: tools.ModelCaps{SupportsTools: true}}}
}

type progressLog struct {
	mu   sync.Mutex
	msgs []string
}

func (p *progressLog) CallStarted(tools.Call)     {}
func (p *progressLog) CallFinished(tools.Outcome) {}
func (p *progressLog) CallProgress(pr tools.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msgs = append(p.msgs, pr.Message)
}

func (r *rig) call(name string, args any, obs tools.Observer) tools.Outcome {
	r.t.Helper()
	b, _ := json.Marshal(args)
	out := r.pipe.RunBatch(context.Background(), []tools.Call{{ID: "c", Name: name, Arguments: string(b), SessionID: "s1", Scope: r.scope}}, obs)
	return out[0]
}

func (r *rig) display(o tools.Outcome) map[string]any {
	r.t.Helper()
	var d map[string]any
	if err := json.Unmarshal(o.Display, &d); err != nil {
		r.t.Fatalf("display %q: %v (%s)", o.Display, err, o.Content)
	}
	return d
}

func TestFileToolsRecordTheLevel(t *testing.T) {
	r := newRig(t)
	steps := []struct {
		tool string
		args map[string]any
		want string
	}{
		{WriteTool, map[string]any{"path": "src/a.txt", "content": "alpha\nbeta\n"}, "Created src/a.txt (11 bytes)."},
		{EditTool, map[string]any{"path": "src/a.txt", "old_string": "beta", "new_string": "gamma"}, "Edited src/a.txt: 1 replacement(s), the first at line 2."},
		{ReadTool, map[string]any{"path": "src/a.txt"}, "     1\talpha\n     2\tgamma\n"},
		{ReadTool, map[string]any{"path": "src/a.txt", "limit": 1}, "(lines 1-1 of 2; read on with offset 2)"},
		{GrepTool, map[string]any{"pattern": "gam+a"}, "src/a.txt:2:gamma"},
		{ListTool, map[string]any{"path": "src"}, "src: 1 entries\na.txt (12 bytes)"},
		{FindTool, map[string]any{"pattern": "**/*.txt"}, "1 files match \"**/*.txt\":\nsrc/a.txt"},
	}
	for _, s := range steps {
		o := r.call(s.tool, s.args, nil)
		if o.Status != tools.StatusResult || !strings.Contains(o.Content, s.want) {
			t.Fatalf("%s: %s %q, want %q", s.tool, o.Status, o.Content, s.want)
		}
		if r.display(o)["level"] != string(LevelReduced) {
			t.Fatalf("%s: display %s", s.tool, o.Display)
		}
	}
	o := r.call(ReadTool, map[string]any{"path": "../../etc/passwd"}, nil)
	if o.Status != tools.StatusError || !strings.Contains(o.Content, "outside the workspace") || r.display(o)["level"] != string(LevelReduced) {
		t.Fatalf("outside: %s %q %s", o.Status, o.Content, o.Display)
	}
}

func TestToolsAreFlagged(t *testing.T) {
	r := newRig(t)
	for _, e := range r.svc.Tools() {
		ro := e.Name == ReadTool || e.Name == GrepTool || e.Name == ListTool || e.Name == FindTool
		if e.ReadOnly != ro || e.ConcurrencySafe != ro || e.Asks() == ro {
			t.Errorf("%s: read-only %v, concurrency-safe %v, asks %v", e.Name, e.ReadOnly, e.ConcurrencySafe, e.Asks())
		}
	}
}

func TestTouchesFeedThePermissionEngine(t *testing.T) {
	r := newRig(t)
	byName := map[string]tools.Entry{}
	for _, e := range r.svc.Tools() {
		byName[e.Name] = e
	}
	bash, _ := byName[BashTool].Touches(json.RawMessage(`{"command":"go test ./... && echo ok"}`))
	if len(bash.Commands) != 1 || bash.Commands[0] != "go test ./... && echo ok" {
		t.Fatalf("bash touches %+v", bash)
	}
	edit, _ := byName[EditTool].Touches(json.RawMessage(`{"path":"a.go","old_string":"x := 1","new_string":"x := 2"}`))
	if len(edit.Edits) != 1 || edit.Edits[0] != (tools.Edit{Path: "a.go", Old: "x := 1", New: "x := 2"}) {
		t.Fatalf("edit touches %+v", edit)
	}
	write, _ := byName[WriteTool].Touches(json.RawMessage(`{"path":"b.go","content":"package b"}`))
	if len(write.Edits) != 1 || write.Edits[0].New != "package b" {
		t.Fatalf("write touches %+v", write)
	}
	grep, _ := byName[GrepTool].Touches(json.RawMessage(`{"pattern":"x"}`))
	if len(grep.Paths) != 1 || grep.Paths[0] != "." {
		t.Fatalf("grep touches %+v", grep)
	}
}

func TestBashRunsInTheWorkspace(t *testing.T) {
	r := newRig(t)
	if err := os.MkdirAll(filepath.Join(r.ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := r.call(BashTool, map[string]any{"command": "pwd; echo oops >&2; exit 3", "cwd": "sub"}, nil)
	d := r.display(o)
	if o.Status != tools.StatusResult || d["exitCode"] != 3.0 || !strings.HasSuffix(strings.TrimSpace(d["stdout"].(string)), "/sub") || d["stderr"] != "oops\n" {
		t.Fatalf("bash: %s %q %v", o.Status, o.Content, d)
	}
	if !strings.Contains(o.Content, "Exit code: 3 (sandbox: none)") {
		t.Fatalf("content %q", o.Content)
	}
	for _, cwd := range []string{"..", "../x", "/etc"} {
		if o := r.call(BashTool, map[string]any{"command": "true", "cwd": cwd}, nil); o.Status != tools.StatusError {
			t.Fatalf("cwd %s ran: %q", cwd, o.Content)
		}
	}
}

func TestBashKeepsHeadAndTail(t *testing.T) {
	r := newRig(t)
	o := r.call(BashTool, map[string]any{"command": "echo FIRST; head -c 300000 /dev/zero | tr '\\0' x; echo; echo LAST"}, nil)
	d := r.display(o)
	out := d["stdout"].(string)
	dropped := d["dropped"].(float64)
	if !strings.HasPrefix(out, "FIRST\n") || !strings.HasSuffix(out, "LAST\n") || dropped < 300000-HeadBytes-TailBytes || !strings.Contains(out, "bytes of output dropped") {
		t.Fatalf("%d bytes kept, %v dropped: %q…%q", len(out), dropped, out[:20], out[len(out)-20:])
	}
	if len(out) > HeadBytes+TailBytes+100 {
		t.Fatalf("kept %d bytes", len(out))
	}
}

func TestBashTimeoutKillsTheTree(t *testing.T) {
	r := newRig(t)
	marker := filepath.Join(r.ws, "survived")
	start := time.Now()
	o := r.call(BashTool, map[string]any{"command": "(sleep 3; touch survived) & sleep 30", "timeout": 1}, nil)
	d := r.display(o)
	if d["timedOut"] != true || time.Since(start) > 10*time.Second || !strings.Contains(o.Content, "killed after 1s") {
		t.Fatalf("timeout: %v %q after %s", d, o.Content, time.Since(start))
	}
	time.Sleep(3500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a child outlived the timeout")
	}
}

func TestBashStreamsProgressAfterTwoSeconds(t *testing.T) {
	r := newRig(t)
	log := &progressLog{}
	o := r.call(BashTool, map[string]any{"command": "echo started; sleep 3.5; echo done"}, log)
	if o.Status != tools.StatusResult {
		t.Fatalf("bash: %q", o.Content)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.msgs) == 0 || !strings.Contains(log.msgs[0], "started") {
		t.Fatalf("progress %q", log.msgs)
	}
}

func TestWorkspaces(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	w := r.svc.Workspaces()
	if _, err := w.Get(ctx, "c1"); err == nil {
		t.Fatal("a chat session got a workspace")
	}
	if p, err := w.Workspace(ctx, "c1"); err != nil || p != "" {
		t.Fatalf("approval's workspace of a chat: %q %v", p, err)
	}
	picked := t.TempDir()
	got, err := w.Set(ctx, "s1", picked)
	if real, _ := filepath.EvalSymlinks(picked); err != nil || got.Path != real || got.Made {
		t.Fatalf("set %+v %v", got, err)
	}
	home, _ := os.UserHomeDir()
	for _, bad := range []string{"relative", "/nonexistent/x", "/", home, w.dataDir, filepath.Join(w.dataDir, "logs"), filepath.Dir(w.dataDir)} {
		if _, err := w.Set(ctx, "s1", bad); err == nil {
			t.Errorf("%q became a workspace", bad)
		}
	}
	back, err := w.Set(ctx, "s1", "")
	if err != nil || !back.Made || back.Path != filepath.Join(w.dataDir+"-workspaces", "s1") {
		t.Fatalf("back to a made one: %+v %v", back, err)
	}
}

func TestNoSandboxRefuses(t *testing.T) {
	r := newRig(t)
	r.svc.engine = Local{}
	o := r.call(ListTool, map[string]any{}, nil)
	if o.Status != tools.StatusError || o.Err == nil || o.Err.Code != "sandbox_unavailable" {
		t.Fatalf("no sandbox: %s %+v", o.Status, o.Err)
	}
}

// TestPreviewShowsTheChange: the approval dialog's view of a write or an edit is a diff
// against the file as it is, read in the sandbox; a new file is all added; nothing changes.
func TestPreviewShowsTheChange(t *testing.T) {
	r := newRig(t)
	if o := r.call(WriteTool, map[string]any{"path": "a.txt", "content": "one\ntwo\nthree\n"}, nil); o.Status != tools.StatusResult {
		t.Fatalf("write: %s", o.Content)
	}
	entry := func(name string) tools.Entry {
		for _, e := range r.svc.Tools() {
			if e.Name == name {
				return e
			}
		}
		t.Fatalf("no %s", name)
		return tools.Entry{}
	}
	ctx := tools.WithCall(context.Background(), tools.Call{SessionID: "s1", Scope: r.scope})
	tests := []struct {
		tool    string
		args    string
		want    []string
		created bool
		same    bool // the file holds it already
	}{
		{WriteTool, `{"path":"a.txt","content":"one\n2\nthree\n"}`, []string{" one", "-two", "+2", " three"}, false, false},
		{EditTool, `{"path":"a.txt","old_string":"three","new_string":"3"}`, []string{" two", "-three", "+3"}, false, false},
		{WriteTool, `{"path":"new/b.txt","content":"fresh\n"}`, []string{"+fresh"}, true, false},
		{WriteTool, `{"path":"a.txt","content":"one\ntwo\nthree\n"}`, nil, false, true},
	}
	for _, tt := range tests {
		edits, err := entry(tt.tool).Preview(ctx, json.RawMessage(tt.args))
		if err != nil || len(edits) != 1 {
			t.Fatalf("%s: %v %v", tt.tool, edits, err)
		}
		lines := strings.Split(edits[0].Diff, "\n")
		for _, w := range tt.want {
			if !slices.Contains(lines, w) {
				t.Fatalf("%s: no line %q in\n%s", tt.tool, w, edits[0].Diff)
			}
		}
		if edits[0].Created != tt.created || edits[0].Unchanged != tt.same || (tt.same && edits[0].Diff != "") {
			t.Fatalf("%s: %+v", tt.tool, edits[0])
		}
	}
	if b, _ := os.ReadFile(filepath.Join(r.ws, "a.txt")); string(b) != "one\ntwo\nthree\n" {
		t.Fatalf("a preview changed the file: %q", b)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "new")); err == nil {
		t.Fatal("a preview made a folder")
	}
}
