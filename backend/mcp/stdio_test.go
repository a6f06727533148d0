package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/mcp/logring"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestStdioEverything runs server-everything as a child process: its tools are cached,
// synced into the registry with the right flags, called through the pipeline, and the
// list it announces after initialized (tools/list_changed) lands in the catalog.
func TestStdioEverything(t *testing.T) {
	h := newHarness(t)
	v := h.save(everything(t, "Everything"))
	h.m.Start()
	v = h.wait(v.ID, 30*time.Second, "ready with echo", func(v ServerView) bool { return ready(v) && hasTool("echo")(v) })
	if v.Status.Transport != TransportStdio || v.Status.Pid == 0 {
		t.Fatalf("status %+v", v.Status)
	}
	// server-everything registers more tools once initialized and says so.
	h.wait(v.ID, 30*time.Second, "list_changed tool", hasTool("simulate-research-query"))

	echo := tools.MCPName(v.ID, "Everything", "echo")
	e, ok := h.reg.Lookup(echo)
	if !ok {
		t.Fatalf("%s not in the registry", echo)
	}
	if !e.ReadOnly || e.Approval != ApprovalDefault || e.Defer != tools.DeferAuto || e.Namespace != tools.MCPNamespace(v.ID) {
		t.Fatalf("echo entry: readOnly %v approval %q defer %s ns %s", e.ReadOnly, e.Approval, e.Defer, e.Namespace)
	}
	// A tool without readOnlyHint asks by default: the permission step's defaults ask for
	// it (inline or through tool_invoke), so it carries the default choice, not a gate.
	var gated string
	for _, ti := range h.wait(v.ID, 5*time.Second, "tools", ready).Tools {
		if !ti.ReadOnly {
			gated = ti.WireName
			if !ti.NeedsApproval {
				t.Fatalf("%s is not read-only but needs no approval", ti.Name)
			}
		}
	}
	if gated == "" {
		t.Fatal("server-everything has no tool without readOnlyHint")
	}
	if g, _ := h.reg.Lookup(gated); g.ReadOnly || g.Approval != ApprovalDefault || g.ConcurrencySafe {
		t.Fatalf("gated entry: %+v", g)
	}

	p := tools.NewPipeline(h.reg, tools.Options{DataDir: t.TempDir()})
	scope := tools.Scope{SessionID: "s1", Toolsets: []string{"mcp"}, Model: tools.ModelCaps{SupportsTools: true, ContextWindow: 200000}}
	sel, _ := p.Select(context.Background(), scope)
	if !slices.ContainsFunc(sel.Tools, func(d tools.Definition) bool { return d.Name == echo }) && !slices.Contains(sel.Deferred, echo) {
		t.Fatalf("echo not selected: %v", sel.Tools)
	}
	outs := p.RunBatch(context.Background(), []tools.Call{{ID: "c1", Name: echo, Arguments: `{"message":"héllo 你好"}`, SessionID: "s1", Scope: scope}}, nil)
	if outs[0].Status != tools.StatusResult || outs[0].Content != "Echo: héllo 你好" {
		t.Fatalf("outcome %+v", outs[0])
	}

	// The server's stderr is in the ring and in the file.
	lines, _ := h.m.Logs(v.ID, 0)
	if !slices.ContainsFunc(lines, func(l logring.Line) bool {
		return l.Stream == logring.StreamStderr && strings.Contains(l.Text, "Starting default (STDIO) server")
	}) {
		t.Fatalf("stderr not captured: %+v", lines)
	}
	b, err := os.ReadFile(LogFile(h.dataDir, v.ID))
	if err != nil || !strings.Contains(string(b), "Starting default (STDIO) server") {
		t.Fatalf("log file: %v %q", err, b)
	}
}

// TestProgressAndCancellation: progress notifications reach the call that asked for them;
// a cancelled call ends at once, later notifications for its token are dropped, and the
// same session serves the next call.
func TestProgressAndCancellation(t *testing.T) {
	h := newHarness(t)
	v := h.save(everything(t, "Everything"))
	if _, err := h.m.RefreshTools(ctxT(t, 30*time.Second), v.ID); err != nil {
		t.Fatal(err)
	}
	pid := h.m.servers[v.ID].status().Pid

	var mu sync.Mutex
	var got []tools.Progress
	res, err := h.call(v.ID, "trigger-long-running-operation", `{"duration":0.5,"steps":5}`, func(p tools.Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})
	if err != nil || !strings.Contains(res.Content, "Long running operation completed") {
		t.Fatalf("result %+v, %v", res, err)
	}
	// go-sdk hands the response to the caller while the last notification may still be
	// queued for its handler, so the final step can race the result; the others cannot.
	mu.Lock()
	if len(got) < 4 || got[0].Progress != 1 || got[3].Progress != 4 || got[0].Total != 5 {
		t.Fatalf("progress %+v", got)
	}
	mu.Unlock()

	// Told of drops from here on: the first call's last notification may still be on its
	// way (see above), and its token is not the cancelled call's.
	dropped := make(chan struct{}, 64)
	issued := h.m.progress.next.Load()
	h.m.progress.mu.Lock()
	h.m.progress.onDrop = func(tok string) {
		if n, err := strconv.ParseUint(strings.TrimPrefix(tok, "cairn-"), 10, 64); err == nil && n > issued {
			dropped <- struct{}{}
		}
	}
	h.m.progress.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{}, 1)
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := h.m.CallTool(ctx, v.ID, "trigger-long-running-operation", json.RawMessage(`{"duration":30,"steps":300}`), func(tools.Progress) {
			select {
			case first <- struct{}{}:
			default:
			}
		})
		done <- err
	}()
	select {
	case <-first:
	case <-time.After(20 * time.Second):
		t.Fatal("no progress")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled call: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancel did not end the call")
	}
	if time.Since(start) > 10*time.Second { // the operation would take 30 s
		t.Fatalf("cancelled call took %s", time.Since(start))
	}
	select {
	case <-dropped: // the server went on reporting for a token nobody holds
	case <-time.After(10 * time.Second):
		t.Fatal("late progress was not dropped (or never came)")
	}
	res, err = h.call(v.ID, "echo", `{"message":"still here"}`, nil)
	if err != nil || res.Content != "Echo: still here" {
		t.Fatalf("after cancel: %+v %v", res, err)
	}
	if now := h.m.servers[v.ID].status().Pid; now != pid {
		t.Fatalf("session replaced: pid %d → %d", pid, now)
	}
}

// TestCrashRestartsWithBackoff kills the server; Cairn notices, reports the exit with the
// signal, restarts it after the backoff and its tools work again.
func TestCrashRestartsWithBackoff(t *testing.T) {
	h := newHarness(t)
	v := h.save(everything(t, "Crashy"))
	h.m.Start()
	v = h.wait(v.ID, 30*time.Second, "ready", ready)
	pid := v.Status.Pid
	leader, err := os.FindProcess(pid) // Kill is SIGKILL, and it compiles on Windows too
	if err != nil {
		t.Fatal(err)
	}
	if err := leader.Kill(); err != nil {
		t.Fatal(err)
	}
	e := h.wait(v.ID, 10*time.Second, "error after crash", func(v ServerView) bool { return v.Status.State == StateError })
	if e.Status.Error == nil || e.Status.Error.Code != apperr.MCPExited || !strings.Contains(e.Status.Reason, "killed") {
		t.Fatalf("crash status %+v", e.Status)
	}
	r := h.wait(v.ID, 30*time.Second, "ready again", func(v ServerView) bool { return v.Status.State == StateReady && v.Status.Pid != pid })
	if r.Status.Restarts != 1 {
		t.Fatalf("restarts %d", r.Status.Restarts)
	}
	if res, err := h.call(v.ID, "echo", `{"message":"back"}`, nil); err != nil || res.Content != "Echo: back" {
		t.Fatalf("%+v %v", res, err)
	}
	lines, _ := h.m.Logs(v.ID, 0)
	if !slices.ContainsFunc(lines, func(l logring.Line) bool { return strings.Contains(l.Text, "restarting in") }) {
		t.Fatal("no restart note in the log")
	}
}
