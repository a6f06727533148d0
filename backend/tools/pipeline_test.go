package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// waitFor fails the test when ch yields nothing in time; it is a guard against a hang,
// not a synchronisation (the value arrives as soon as the pipeline sends it).
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func newPipeline(t *testing.T, opt tools.Options, es ...tools.Entry) (*tools.Pipeline, tools.Scope) {
	t.Helper()
	r := tools.NewRegistry()
	mustRegister(t, r, es...)
	if opt.DataDir == "" {
		opt.DataDir = t.TempDir()
	}
	return tools.NewPipeline(r, opt), toolstest.ChatScope("s1")
}

func runOne(t *testing.T, p *tools.Pipeline, call tools.Call) tools.Outcome {
	t.Helper()
	rec := &toolstest.Recorder{}
	outs := p.RunBatch(context.Background(), []tools.Call{call}, rec)
	if len(outs) != 1 {
		t.Fatalf("%d outcomes for one call", len(outs))
	}
	if rec.Count("started") != 1 || rec.Count("finished") != 1 {
		t.Fatalf("observer: %d started, %d finished", rec.Count("started"), rec.Count("finished"))
	}
	o := outs[0]
	if o.CallID != call.ID || o.Name != call.Name || o.Duration <= 0 {
		t.Fatalf("outcome header: id %q name %q duration %v", o.CallID, o.Name, o.Duration)
	}
	if o.Status != tools.StatusResult && o.Err == nil {
		t.Fatalf("%s outcome without an error: %+v", o.Status, o)
	}
	if o.Content == "" {
		t.Fatal("empty content: the model must always get text")
	}
	return o
}

// stepLog records pipeline steps in the order they ran.
type stepLog struct {
	mu    sync.Mutex
	steps []string
}

func (l *stepLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.steps = append(l.steps, s)
}

func (l *stepLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.steps)
}

func TestPipelineRunsStepsInOrder(t *testing.T) {
	log := &stepLog{}
	e := toolstest.Echo("test_echo")
	e.ValidateInput = func(ctx context.Context, _ json.RawMessage) error {
		if c, ok := tools.CallFromContext(ctx); !ok || c.ID != "c1" {
			t.Errorf("ValidateInput has no call in ctx")
		}
		log.add("validate")
		return nil
	}
	inner := e.Execute
	e.Execute = func(ctx context.Context, args json.RawMessage, progress func(tools.Progress)) (tools.Result, error) {
		log.add("execute")
		return inner(ctx, args, progress)
	}
	p, scope := newPipeline(t, tools.Options{
		PreHooks: []tools.PreHook{
			func(_ context.Context, _ tools.Call, _ *tools.Entry, _ json.RawMessage) (tools.PreHookResult, error) {
				log.add("pre1")
				return tools.PreHookResult{}, nil
			},
			func(_ context.Context, _ tools.Call, _ *tools.Entry, _ json.RawMessage) (tools.PreHookResult, error) {
				log.add("pre2")
				return tools.PreHookResult{}, nil
			},
		},
		Permission: tools.PermissionFunc(func(_ context.Context, req tools.PermissionRequest) (tools.Decision, error) {
			log.add("permission")
			if req.Entry.Name != "test_echo" || string(req.Args) != `{"text":"hi"}` {
				t.Errorf("permission request: %s %s", req.Entry.Name, req.Args)
			}
			return tools.Decision{Behavior: tools.BehaviorAllow}, nil
		}),
		PostHooks: []tools.PostHook{func(_ context.Context, _ tools.Call, _ *tools.Entry, o tools.Outcome) (tools.Outcome, error) {
			log.add("post")
			return o, nil
		}},
	}, e)
	o := runOne(t, p, toolstest.Call("c1", "test_echo", `{"text":"hi"}`, scope))
	if o.Status != tools.StatusResult || o.Content != "hi" || o.Size != 2 {
		t.Fatalf("outcome %+v", o)
	}
	want := []string{"validate", "pre1", "pre2", "permission", "execute", "post"}
	if got := log.get(); !slices.Equal(got, want) {
		t.Fatalf("steps %v, want %v", got, want)
	}
}

func TestPipelineErrorsAreReadable(t *testing.T) {
	echo := toolstest.Echo("test_echo")
	echo.Aliases = []string{"old_echo"}
	noArgs := tools.Entry{Name: "test_ping", Namespace: "test", Description: "Ping.", Execute: noop}
	rejectPlain := toolstest.Echo("test_reject")
	rejectPlain.ValidateInput = func(context.Context, json.RawMessage) error { return errors.New("text must be lowercase") }
	rejectApp := toolstest.Echo("test_reject_app")
	rejectApp.ValidateInput = func(context.Context, json.RawMessage) error {
		return apperr.New(apperr.ProviderNotFound, "no search provider").WithParam("name", "tavily")
	}
	isErr := tools.Entry{Name: "test_iserror", Namespace: "test", Description: "Reports an error as content.",
		Execute: func(context.Context, json.RawMessage, func(tools.Progress)) (tools.Result, error) {
			return tools.Result{Content: "rate limited by upstream", IsError: true}, nil
		}}
	panicky := tools.Entry{Name: "test_panic", Namespace: "test", Description: "Panics.",
		Execute: func(context.Context, json.RawMessage, func(tools.Progress)) (tools.Result, error) { panic("kaboom") }}
	panickyInline := tools.Entry{Name: "test_panic_inline", Namespace: "test", Description: "Panics on the caller's goroutine.", Cancellable: true,
		Execute: func(context.Context, json.RawMessage, func(tools.Progress)) (tools.Result, error) {
			panic("kaboom inline")
		}}
	echoInline := echo
	echoInline.Name, echoInline.Aliases, echoInline.Cancellable = "test_echo_inline", nil, true
	empty := tools.Entry{Name: "test_empty", Namespace: "test", Description: "Returns nothing.",
		Execute: func(context.Context, json.RawMessage, func(tools.Progress)) (tools.Result, error) {
			return tools.Result{}, nil
		}}
	taskOnly := tools.Entry{Name: "test_task", Namespace: "test", Description: "Task only.", Execute: noop,
		Applies: func(s tools.Scope) bool { return s.SessionKind == "task" }}
	disabled := tools.Entry{Name: "test_disabled", Namespace: "test", Description: "Disabled by the user.", Execute: noop}

	p, scope := newPipeline(t, tools.Options{}, echo, noArgs, rejectPlain, rejectApp, isErr, panicky, panickyInline, echoInline, empty, taskOnly, disabled,
		toolstest.Failing("test_fail", toolstest.ErrBoom),
		toolstest.Failing("test_fail_app", apperr.New(apperr.ModelUnreachable, "cannot reach upstream")))
	scope.Disabled = map[string]bool{"test_disabled": true}

	tests := []struct {
		name, tool, args string
		status           tools.Status
		code             apperr.Code
		contains         []string
	}{
		{"ok", "test_echo", `{"text":"hi"}`, tools.StatusResult, "", []string{"hi"}},
		{"alias", "old_echo", `{"text":"via alias"}`, tools.StatusResult, "", []string{"via alias"}},
		{"unknown tool lists close names", "test_ecko", `{}`, tools.StatusError, apperr.ToolNotFound,
			[]string{`no tool named "test_ecko"`, "Did you mean: test_echo"}},
		{"unknown tool without close names lists tools", "zzzzzzzzzzzz", `{}`, tools.StatusError, apperr.ToolNotFound,
			[]string{"Available tools include: ", "test_echo"}},
		{"invalid JSON", "test_echo", `{"text": "a",}`, tools.StatusError, apperr.ToolArgsInvalidJSON,
			[]string{"not valid JSON", "at byte 14", "Send the arguments as one JSON object"}},
		{"invalid JSON mid-text", "test_echo", `{"text" "a"}`, tools.StatusError, apperr.ToolArgsInvalidJSON,
			[]string{`at byte 9: {"text"  <-- here "a"}`}},
		{"truncated JSON", "test_echo", `{"text": "a`, tools.StatusError, apperr.ToolArgsInvalidJSON,
			[]string{"not valid JSON", `{"text": "a <-- the text ends here`}},
		{"empty arguments mean {}", "test_ping", ``, tools.StatusResult, "", []string{"ok"}},
		{"arguments must be an object", "test_echo", `["hi"]`, tools.StatusError, apperr.ToolArgsInvalid,
			[]string{"must be a JSON object, got an array"}},
		{"schema: missing field", "test_echo", `{}`, tools.StatusError, apperr.ToolArgsInvalid,
			[]string{`invalid arguments for test_echo: missing required field "text"`}},
		{"schema: wrong type", "test_echo", `{"text":1}`, tools.StatusError, apperr.ToolArgsInvalid,
			[]string{`field "text": expected string, got integer`}},
		{"validateInput plain error", "test_reject", `{"text":"A"}`, tools.StatusError, apperr.ToolInputRejected,
			[]string{"test_reject refused its input: text must be lowercase"}},
		{"validateInput apperr kept", "test_reject_app", `{"text":"a"}`, tools.StatusError, apperr.ProviderNotFound,
			[]string{"no search provider"}},
		{"execute plain error", "test_fail", `{}`, tools.StatusError, apperr.ToolFailed, []string{"test_fail failed: boom"}},
		{"execute apperr kept", "test_fail_app", `{}`, tools.StatusError, apperr.ModelUnreachable, []string{"cannot reach upstream"}},
		{"isError result", "test_iserror", `{}`, tools.StatusError, apperr.ToolFailed, []string{"Error: rate limited by upstream"}},
		{"panicking tool", "test_panic", `{}`, tools.StatusError, apperr.ToolFailed, []string{"crashed", "kaboom"}},
		{"panicking cancellable tool (runs inline)", "test_panic_inline", `{}`, tools.StatusError, apperr.ToolFailed, []string{"crashed", "kaboom inline"}},
		{"cancellable tool (runs inline)", "test_echo_inline", `{"text":"inline"}`, tools.StatusResult, "", []string{"inline"}},
		{"empty output", "test_empty", `{}`, tools.StatusResult, "", []string{"(no output)"}},
		{"tool outside its scope", "test_task", `{}`, tools.StatusError, apperr.ToolNotFound, []string{"no tool named"}},
		{"disabled tool", "test_disabled", `{}`, tools.StatusError, apperr.ToolNotFound, []string{"no tool named"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := runOne(t, p, toolstest.Call("c-"+tt.name, tt.tool, tt.args, scope))
			if o.Status != tt.status {
				t.Fatalf("status %s, want %s (%s)", o.Status, tt.status, o.Content)
			}
			if tt.code != "" {
				if o.Err == nil || o.Err.Code != tt.code {
					t.Fatalf("error %+v, want code %s", o.Err, tt.code)
				}
				if o.Err.Params["name"] == nil {
					t.Fatalf("error has no name param for i18n: %+v", o.Err.Params)
				}
			}
			for _, c := range tt.contains {
				if !strings.Contains(o.Content, c) {
					t.Fatalf("content %q lacks %q", o.Content, c)
				}
			}
		})
	}
}

func TestPreHooks(t *testing.T) {
	var sawHook *tools.Decision
	perm := tools.PermissionFunc(func(ctx context.Context, req tools.PermissionRequest) (tools.Decision, error) {
		sawHook = req.Hook
		return tools.AllowAll{}.Check(ctx, req)
	})
	hook := func(res tools.PreHookResult, err error) tools.PreHook {
		return func(context.Context, tools.Call, *tools.Entry, json.RawMessage) (tools.PreHookResult, error) {
			return res, err
		}
	}
	tests := []struct {
		name     string
		hook     tools.PreHook
		status   tools.Status
		code     apperr.Code
		content  string
		wantHook bool
	}{
		{"rewrite input", hook(tools.PreHookResult{Args: json.RawMessage(`{"text":"rewritten"}`)}, nil), tools.StatusResult, "", "rewritten", false},
		{"invalid rewrite", hook(tools.PreHookResult{Args: json.RawMessage(`{"txt":1}`)}, nil), tools.StatusError, apperr.ToolArgsInvalid, "after a hook rewrote them", false},
		{"stop", hook(tools.PreHookResult{Stop: true, Reason: "outside working hours"}, nil), tools.StatusError, apperr.ToolStoppedByHook, "outside working hours", false},
		{"hook error fails closed", hook(tools.PreHookResult{}, errors.New("hook crashed")), tools.StatusError, apperr.ToolStoppedByHook, "hook crashed", false},
		{"hook panic fails closed", func(context.Context, tools.Call, *tools.Entry, json.RawMessage) (tools.PreHookResult, error) {
			panic("bad hook")
		}, tools.StatusError, apperr.ToolStoppedByHook, "bad hook", false},
		{"deny decision skips permission", hook(tools.PreHookResult{Decision: &tools.Decision{Behavior: tools.BehaviorDeny, Reason: "blocked by policy"}}, nil),
			tools.StatusError, apperr.ToolPermissionDeny, "blocked by policy", false},
		{"allow decision reaches permission", hook(tools.PreHookResult{Decision: &tools.Decision{Behavior: tools.BehaviorAllow}}, nil),
			tools.StatusResult, "", "hi", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sawHook = nil
			p, scope := newPipeline(t, tools.Options{PreHooks: []tools.PreHook{tt.hook}, Permission: perm}, toolstest.Echo("test_echo"))
			o := runOne(t, p, toolstest.Call("c1", "test_echo", `{"text":"hi"}`, scope))
			if o.Status != tt.status || (tt.code != "" && o.Err.Code != tt.code) || !strings.Contains(o.Content, tt.content) {
				t.Fatalf("outcome %s %v %q", o.Status, o.Err, o.Content)
			}
			if (sawHook != nil) != tt.wantHook {
				t.Fatalf("permission saw hook decision %v, want %v", sawHook, tt.wantHook)
			}
			if sawHook != nil && sawHook.Source != tools.SourceHook {
				t.Fatalf("hook decision source %q", sawHook.Source)
			}
		})
	}
}

func TestPermission(t *testing.T) {
	tests := []struct {
		name    string
		perm    tools.PermissionFunc
		status  tools.Status
		code    apperr.Code
		content string
	}{
		{"allow", func(context.Context, tools.PermissionRequest) (tools.Decision, error) {
			return tools.Decision{Behavior: tools.BehaviorAllow, Source: tools.SourceUserTemporary}, nil
		}, tools.StatusResult, "", "hi"},
		{"deny", func(context.Context, tools.PermissionRequest) (tools.Decision, error) {
			return tools.Decision{Behavior: tools.BehaviorDeny, Source: tools.SourceUserReject, Reason: "the user said no"}, nil
		}, tools.StatusError, apperr.ToolPermissionDeny, "permission to run test_echo was denied: the user said no. Do not retry"},
		{"unanswered ask", func(context.Context, tools.PermissionRequest) (tools.Decision, error) {
			return tools.Decision{Behavior: tools.BehaviorAsk}, nil
		}, tools.StatusError, apperr.ToolPermissionDeny, "nobody could be asked"},
		{"error fails closed", func(context.Context, tools.PermissionRequest) (tools.Decision, error) {
			return tools.Decision{}, errors.New("approval store unavailable")
		}, tools.StatusError, apperr.ToolPermissionDeny, "approval store unavailable"},
		{"edited input", func(context.Context, tools.PermissionRequest) (tools.Decision, error) {
			return tools.Decision{Behavior: tools.BehaviorAllow, Args: json.RawMessage(`{"text":"edited"}`)}, nil
		}, tools.StatusResult, "", "edited"},
		{"invalid edited input", func(context.Context, tools.PermissionRequest) (tools.Decision, error) {
			return tools.Decision{Behavior: tools.BehaviorAllow, Args: json.RawMessage(`{}`)}, nil
		}, tools.StatusError, apperr.ToolArgsInvalid, "after they were edited for approval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, scope := newPipeline(t, tools.Options{Permission: tt.perm}, toolstest.Echo("test_echo"))
			o := runOne(t, p, toolstest.Call("c1", "test_echo", `{"text":"hi"}`, scope))
			if o.Status != tt.status || (tt.code != "" && o.Err.Code != tt.code) || !strings.Contains(o.Content, tt.content) {
				t.Fatalf("outcome %s %v %q", o.Status, o.Err, o.Content)
			}
		})
	}
}

// TestPermissionWaitIsStoppable: a call waiting for approval ends as stopped when the
// turn is stopped.
func TestPermissionWaitIsStoppable(t *testing.T) {
	asked := make(chan struct{})
	perm := tools.PermissionFunc(func(ctx context.Context, _ tools.PermissionRequest) (tools.Decision, error) {
		close(asked)
		<-ctx.Done()
		return tools.Decision{}, ctx.Err()
	})
	p, scope := newPipeline(t, tools.Options{Permission: perm}, toolstest.Echo("test_echo"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []tools.Outcome)
	go func() {
		done <- p.RunBatch(ctx, []tools.Call{toolstest.Call("c1", "test_echo", `{"text":"hi"}`, scope)}, nil)
	}()
	waitFor(t, asked, "permission check")
	cancel()
	o := waitFor(t, done, "batch")[0]
	if o.Status != tools.StatusStopped || o.Err.Code != apperr.ToolStopped {
		t.Fatalf("outcome %s %v", o.Status, o.Err)
	}
}

func TestPostHooks(t *testing.T) {
	upper := func(_ context.Context, _ tools.Call, _ *tools.Entry, o tools.Outcome) (tools.Outcome, error) {
		o.Content = strings.ToUpper(o.Content)
		o.CallID, o.Name = "forged", "forged" // must not stick
		return o, nil
	}
	failing := func(context.Context, tools.Call, *tools.Entry, tools.Outcome) (tools.Outcome, error) {
		return tools.Outcome{}, errors.New("redaction failed")
	}
	p, scope := newPipeline(t, tools.Options{PostHooks: []tools.PostHook{upper}}, toolstest.Echo("test_echo"), toolstest.Failing("test_fail", toolstest.ErrBoom))
	if o := runOne(t, p, toolstest.Call("c1", "test_echo", `{"text":"hi"}`, scope)); o.Content != "HI" {
		t.Fatalf("rewrite: %q", o.Content)
	}
	if o := runOne(t, p, toolstest.Call("c2", "test_fail", `{}`, scope)); !strings.Contains(o.Content, "TEST_FAIL FAILED") {
		t.Fatalf("post-hooks also see execution errors: %q", o.Content)
	}
	p2, _ := newPipeline(t, tools.Options{PostHooks: []tools.PostHook{failing}}, toolstest.Echo("test_echo"))
	o := runOne(t, p2, toolstest.Call("c3", "test_echo", `{"text":"hi"}`, scope))
	if o.Status != tools.StatusError || o.Err.Code != apperr.ToolFailed || !strings.Contains(o.Content, "redaction failed") {
		t.Fatalf("failing post-hook: %s %v %q", o.Status, o.Err, o.Content)
	}
	// Calls that never ran do not reach post-hooks.
	if o := runOne(t, p, toolstest.Call("c4", "test_echo", `{}`, scope)); strings.ToUpper(o.Content) == o.Content {
		t.Fatalf("post-hook ran on a validation error: %q", o.Content)
	}
}

func TestLargeResultsAreSpilled(t *testing.T) {
	dir := t.TempDir()
	small := toolstest.Huge("test_small_limit", 5000)
	small.MaxResultBytes = 1000
	unlimited := toolstest.Huge("test_unlimited", 300_000)
	unlimited.MaxResultBytes = -1
	p, scope := newPipeline(t, tools.Options{DataDir: dir}, toolstest.Huge("test_huge", 300_000), small, unlimited)

	if sel, _ := p.Select(context.Background(), scope); slices.Contains(names(sel.Tools), "tool_read_result") {
		t.Fatal("tool_read_result offered before anything was spilled")
	}
	full := toolstest.HugeText(300_000)
	o := runOne(t, p, toolstest.Call("c1", "test_huge", `{}`, scope))
	wantPath := filepath.Join(dir, "tool-results", "s1", "c1.txt")
	if o.Status != tools.StatusResult || o.SpillPath != wantPath || o.Size != 300_000 {
		t.Fatalf("outcome %s path %q size %d", o.Status, o.SpillPath, o.Size)
	}
	if b, err := os.ReadFile(wantPath); err != nil || string(b) != full {
		t.Fatalf("spilled file: %v (%d bytes)", err, len(b))
	}
	if len(o.Content) > 5000 || !strings.HasPrefix(full, strings.SplitN(o.Content, "\n\n[Output truncated", 2)[0]) {
		t.Fatalf("preview is not a prefix of the result, or too long (%d bytes)", len(o.Content))
	}
	for _, want := range []string{"293.0 KB", "300000 bytes", wantPath, `tool_read_result {"call_id": "c1", "offset": `} {
		if !strings.Contains(o.Content, want) {
			t.Fatalf("content lacks %q:\n%s", want, o.Content[len(o.Content)-400:])
		}
	}

	// Now the session is offered tool_read_result, and it reads the rest.
	sel, _ := p.Select(context.Background(), scope)
	if !slices.Contains(names(sel.Tools), "tool_read_result") || !slices.IsSorted(names(sel.Tools)) {
		t.Fatalf("after a spill tools = %v", names(sel.Tools))
	}
	var got strings.Builder
	for off, i := 0, 0; i < 10; i++ {
		r := runOne(t, p, toolstest.Call("r", "tool_read_result", `{"call_id":"c1","offset":`+itoa(off)+`,"length":100000}`, scope))
		if r.Status != tools.StatusResult {
			t.Fatalf("read: %s %q", r.Status, r.Content)
		}
		chunk, footer, _ := strings.Cut(r.Content, "\n\n[Bytes ")
		got.WriteString(chunk)
		if strings.Contains(footer, "This is the end.") {
			break
		}
		off += len(chunk)
	}
	if got.String() != full {
		t.Fatalf("reading in chunks gave %d bytes, want the %d of the result", got.Len(), len(full))
	}
	other := toolstest.ChatScope("s2")
	if r := runOne(t, p, toolstest.Call("r2", "tool_read_result", `{"call_id":"c1"}`, other)); r.Err == nil || r.Err.Code != apperr.NotFound {
		t.Fatalf("another session read the result: %s %q", r.Status, r.Content)
	}
	// A pipeline started later (app restart) still offers it.
	p2 := tools.NewPipeline(p.Registry(), tools.Options{DataDir: dir})
	if sel, _ := p2.Select(context.Background(), scope); !slices.Contains(names(sel.Tools), "tool_read_result") {
		t.Fatal("restart forgot the spilled results")
	}

	if o := runOne(t, p, toolstest.Call("c2", "test_small_limit", `{}`, scope)); o.SpillPath == "" || len(o.Content) > 1500 {
		t.Fatalf("own limit not applied: %q", o.SpillPath)
	}
	if o := runOne(t, p, toolstest.Call("c3", "test_unlimited", `{}`, scope)); o.SpillPath != "" || len(o.Content) != 300_000 {
		t.Fatalf("negative limit spilled: %q", o.SpillPath)
	}
	// A hostile call id stays inside the session folder.
	o = runOne(t, p, toolstest.Call("../../escape", "test_huge", `{}`, scope))
	if rel, err := filepath.Rel(filepath.Join(dir, "tool-results", "s1"), o.SpillPath); err != nil || strings.Contains(rel, "..") || strings.Contains(rel, "/") {
		t.Fatalf("spill path escaped: %q", o.SpillPath)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestSpillFailureIsReported(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, scope := newPipeline(t, tools.Options{DataDir: file}, toolstest.Huge("test_huge", 200_000))
	o := runOne(t, p, toolstest.Call("c1", "test_huge", `{}`, scope))
	if o.Status != tools.StatusError || o.Err.Code != apperr.ToolResultSpill || !strings.Contains(o.Content, "could not be saved") ||
		!strings.HasPrefix(o.Content, "line 000000") {
		t.Fatalf("outcome %s %v %q", o.Status, o.Err, o.Content[:min(len(o.Content), 200)])
	}
}

func TestConcurrencySafeCallsRunInParallel(t *testing.T) {
	slow := toolstest.NewSlow()
	p, scope := newPipeline(t, tools.Options{}, slow.Entry("test_slow", true))
	calls := []tools.Call{toolstest.Call("a", "test_slow", `{}`, scope), toolstest.Call("b", "test_slow", `{}`, scope)}
	done := make(chan []tools.Outcome)
	go func() { done <- p.RunBatch(context.Background(), calls, &toolstest.Recorder{}) }()
	// Both must start before either is released: only possible if they run together.
	started := []string{waitFor(t, slow.Started, "first call"), waitFor(t, slow.Started, "second call")}
	slices.Sort(started)
	if !slices.Equal(started, []string{"a", "b"}) {
		t.Fatalf("started %v", started)
	}
	slow.Release()
	outs := waitFor(t, done, "batch")
	if outs[0].Content != "released a" || outs[1].Content != "released b" {
		t.Fatalf("outcomes out of order: %q, %q", outs[0].Content, outs[1].Content)
	}
}

func TestUnsafeCallsRunInOrder(t *testing.T) {
	slow := toolstest.NewSlow()
	p, scope := newPipeline(t, tools.Options{}, slow.Entry("test_slow", false))
	calls := []tools.Call{toolstest.Call("a", "test_slow", `{}`, scope), toolstest.Call("b", "test_slow", `{}`, scope)}
	rec := &toolstest.Recorder{}
	done := make(chan []tools.Outcome)
	go func() { done <- p.RunBatch(context.Background(), calls, rec) }()
	if id := waitFor(t, slow.Started, "first call"); id != "a" {
		t.Fatalf("first started %q", id)
	}
	if n := rec.Count("started"); n != 1 {
		t.Fatalf("%d calls started while the first unsafe call runs", n)
	}
	slow.Release()
	waitFor(t, done, "batch")
	var order []string
	for _, e := range rec.Events() {
		switch e.Kind {
		case "started":
			order = append(order, "start "+e.Call.ID)
		case "finished":
			order = append(order, "end "+e.Outcome.CallID)
		}
	}
	if want := []string{"start a", "end a", "start b", "end b"}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
}

func TestMixedBatchKeepsOrder(t *testing.T) {
	p, scope := newPipeline(t, tools.Options{MaxParallel: 2}, toolstest.Echo("test_echo"), toolstest.Failing("test_fail", toolstest.ErrBoom))
	var calls []tools.Call
	for i, name := range []string{"test_echo", "test_echo", "test_fail", "test_echo", "nope", "test_echo", "test_echo", "test_echo"} {
		calls = append(calls, toolstest.Call(itoa(i), name, `{"text":"`+itoa(i)+`"}`, scope))
	}
	rec := &toolstest.Recorder{}
	outs := p.RunBatch(context.Background(), calls, rec)
	for i, o := range outs {
		if o.CallID != calls[i].ID {
			t.Fatalf("outcome %d is for call %q", i, o.CallID)
		}
		if calls[i].Name == "test_echo" && o.Content != itoa(i) {
			t.Fatalf("outcome %d content %q", i, o.Content)
		}
	}
	if rec.Count("started") != len(calls) || rec.Count("finished") != len(calls) {
		t.Fatalf("observer: %d started, %d finished", rec.Count("started"), rec.Count("finished"))
	}
}

func TestCancellationStopsTheBatch(t *testing.T) {
	slow := toolstest.NewSlow()
	p, scope := newPipeline(t, tools.Options{}, slow.Entry("test_slow", false), toolstest.Echo("test_echo"))
	calls := []tools.Call{
		toolstest.Call("a", "test_slow", `{}`, scope),
		toolstest.Call("b", "test_slow", `{}`, scope),
		toolstest.Call("c", "test_echo", `{"text":"x"}`, scope),
	}
	rec := &toolstest.Recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []tools.Outcome)
	go func() { done <- p.RunBatch(ctx, calls, rec) }()
	waitFor(t, slow.Started, "first call")
	cancel()
	outs := waitFor(t, done, "batch")
	for i, o := range outs {
		if o.Status != tools.StatusStopped || o.Err == nil || o.Err.Code != apperr.ToolStopped || o.CallID != calls[i].ID {
			t.Fatalf("outcome %d: %s %v", i, o.Status, o.Err)
		}
	}
	if len(slow.Started) != 0 {
		t.Fatal("a call started after the batch was stopped")
	}
	if rec.Count("started") != 3 || rec.Count("finished") != 3 {
		t.Fatalf("observer: %d started, %d finished", rec.Count("started"), rec.Count("finished"))
	}
	// Already stopped: nothing runs, every call still gets its outcome.
	outs = p.RunBatch(ctx, calls, nil)
	if len(outs) != 3 || outs[2].Status != tools.StatusStopped {
		t.Fatalf("pre-cancelled batch: %+v", outs)
	}
}

// TestToolIgnoringContextIsAbandoned: a tool that ignores ctx cannot hold a stopped
// batch longer than StopGrace, and its late progress never reaches the observer.
func TestToolIgnoringContextIsAbandoned(t *testing.T) {
	entered, unblock, late := make(chan struct{}), make(chan struct{}), make(chan struct{})
	stubborn := tools.Entry{Name: "test_stubborn", Namespace: "test", Description: "Ignores ctx.",
		Execute: func(_ context.Context, _ json.RawMessage, progress func(tools.Progress)) (tools.Result, error) {
			close(entered)
			<-unblock
			progress(tools.Progress{Message: "late"})
			close(late)
			return tools.Result{Content: "too late"}, nil
		}}
	p, scope := newPipeline(t, tools.Options{StopGrace: 20 * time.Millisecond}, stubborn)
	rec := &toolstest.Recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []tools.Outcome)
	go func() { done <- p.RunBatch(ctx, []tools.Call{toolstest.Call("a", "test_stubborn", `{}`, scope)}, rec) }()
	waitFor(t, entered, "tool start")
	cancel()
	if o := waitFor(t, done, "batch")[0]; o.Status != tools.StatusStopped {
		t.Fatalf("status %s", o.Status)
	}
	close(unblock)
	waitFor(t, late, "late progress")
	for _, e := range rec.Events() {
		if e.Kind == "progress" {
			t.Fatalf("progress after the call ended reached the observer: %+v", e.Progress)
		}
	}
}

// TestTimeout: a call over its Timeout is a timeout, whether it runs on a watched
// goroutine or (Cancellable) on the caller's.
func TestTimeout(t *testing.T) {
	for _, cancellable := range []bool{false, true} {
		t.Run(fmt.Sprintf("cancellable=%v", cancellable), func(t *testing.T) {
			slow := toolstest.NewSlow()
			e := slow.Entry("test_slow", false)
			e.Timeout, e.Cancellable = 20*time.Millisecond, cancellable
			p, scope := newPipeline(t, tools.Options{}, e)
			o := runOne(t, p, toolstest.Call("a", "test_slow", `{}`, scope))
			if o.Status != tools.StatusError || o.Err.Code != apperr.ToolTimeout || !strings.Contains(o.Content, "took longer than 20ms") {
				t.Fatalf("outcome %s %v %q", o.Status, o.Err, o.Content)
			}
		})
	}
}

func TestProgressIsRoutedToTheCall(t *testing.T) {
	slow := toolstest.NewSlow()
	slow.Release()
	bash := slow.Entry("test_bash", false)
	bash.ProgressKind = "bash"
	mcp := toolstest.MCPLike("srv", "GitHub", 1)[0]
	p, scope := newPipeline(t, tools.Options{}, slow.Entry("test_slow", false), bash, mcp)
	rec := &toolstest.Recorder{}
	p.RunBatch(context.Background(), []tools.Call{
		toolstest.Call("a", "test_slow", `{}`, scope),
		toolstest.Call("b", "test_bash", `{}`, scope),
		toolstest.Call("c", mcp.Name, `{"owner":"o","repo":"r","title":"t"}`, scope),
	}, rec)
	var got []string
	for _, e := range rec.Events() {
		if e.Kind == "progress" {
			got = append(got, e.Progress.CallID+":"+e.Progress.Kind)
		}
	}
	if want := []string{"a:generic", "b:bash", "c:mcp"}; !slices.Equal(got, want) {
		t.Fatalf("progress %v, want %v", got, want)
	}
}

type panickyObserver struct{}

func (panickyObserver) CallStarted(tools.Call)      { panic("observer bug") }
func (panickyObserver) CallProgress(tools.Progress) { panic("observer bug") }
func (panickyObserver) CallFinished(tools.Outcome)  { panic("observer bug") }

func TestRunBatchNeverPanics(t *testing.T) {
	slow := toolstest.NewSlow()
	slow.Release()
	p, scope := newPipeline(t, tools.Options{}, slow.Entry("test_slow", true), toolstest.Echo("test_echo"))
	calls := []tools.Call{toolstest.Call("a", "test_slow", `{}`, scope), toolstest.Call("b", "test_echo", `{"text":"x"}`, scope)}
	if outs := p.RunBatch(context.Background(), calls, panickyObserver{}); outs[1].Content != "x" {
		t.Fatalf("outcomes %+v", outs)
	}
	if outs := p.RunBatch(context.Background(), nil, nil); len(outs) != 0 {
		t.Fatal("empty batch")
	}
}

// TestCallWithoutScopeUsesTheSessionScope: a caller that leaves Call.Scope empty gets
// the scope of the session's latest Select.
func TestCallWithoutScopeUsesTheSessionScope(t *testing.T) {
	task := tools.Entry{Name: "test_task", Namespace: "test", Description: "Task only.", Execute: noop,
		Applies: func(s tools.Scope) bool { return s.SessionKind == "task" }}
	p, scope := newPipeline(t, tools.Options{}, task)
	scope.SessionKind = "task"
	call := tools.Call{ID: "c1", Name: "test_task", SessionID: scope.SessionID}
	if o := runOne(t, p, call); o.Status != tools.StatusError {
		t.Fatal("ran without any scope")
	}
	if _, err := p.Select(context.Background(), scope); err != nil {
		t.Fatal(err)
	}
	if o := runOne(t, p, call); o.Status != tools.StatusResult {
		t.Fatalf("remembered scope not used: %q", o.Content)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Select(ctx, scope); !apperr.Is(err, apperr.Canceled) {
		t.Fatalf("Select on a stopped ctx: %v", err)
	}
}

// TestCompletedWorkIsReportedDespiteStop: a tool that finished its work and returned
// successfully while the stop arrived reports its result: it did happen.
func TestCompletedWorkIsReportedDespiteStop(t *testing.T) {
	entered := make(chan struct{})
	finisher := tools.Entry{Name: "test_commit", Namespace: "test", Description: "Finishes what it started.",
		Execute: func(ctx context.Context, _ json.RawMessage, _ func(tools.Progress)) (tools.Result, error) {
			close(entered)
			<-ctx.Done()
			return tools.Result{Content: "committed"}, nil
		}}
	p, scope := newPipeline(t, tools.Options{}, finisher)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []tools.Outcome)
	go func() { done <- p.RunBatch(ctx, []tools.Call{toolstest.Call("a", "test_commit", `{}`, scope)}, nil) }()
	waitFor(t, entered, "tool start")
	cancel()
	if o := waitFor(t, done, "batch")[0]; o.Status != tools.StatusResult || o.Content != "committed" {
		t.Fatalf("outcome %s %q", o.Status, o.Content)
	}
}

// toolRunner is the interface the chat loop declares; the pipeline must satisfy it.
type toolRunner interface {
	Select(ctx context.Context, scope tools.Scope) (tools.Selection, error)
	RunBatch(ctx context.Context, calls []tools.Call, obs tools.Observer) []tools.Outcome
}

var _ toolRunner = (*tools.Pipeline)(nil)

// TestPermissionSeesTheBatchObserver: the permission step gets the batch's observer in
// its request (the approval service shows its parts through it); a batch without one
// gives nil.
func TestPermissionSeesTheBatchObserver(t *testing.T) {
	var mu sync.Mutex
	var seen []tools.Observer
	reg := tools.NewRegistry()
	if err := reg.Register(toolstest.Echo("test_echo")); err != nil {
		t.Fatal(err)
	}
	p := tools.NewPipeline(reg, tools.Options{DataDir: t.TempDir(),
		Permission: tools.PermissionFunc(func(_ context.Context, req tools.PermissionRequest) (tools.Decision, error) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, req.Observer)
			return tools.Decision{Behavior: tools.BehaviorAllow}, nil
		})})
	scope := toolstest.ChatScope("s1")
	obs := &toolstest.Recorder{}
	p.RunBatch(context.Background(), []tools.Call{toolstest.Call("c1", "test_echo", `{"text":"hi"}`, scope)}, obs)
	p.RunBatch(context.Background(), []tools.Call{toolstest.Call("c3", "test_echo", `{"text":"hi"}`, scope)}, nil)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != obs || seen[1] != nil {
		t.Fatalf("permission saw observers %v, want the batch's then none", seen)
	}
}
