package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// markerCount counts the lines of a marker file (0 when it does not exist).
func markerCount(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestServerThatCannotStartIsStartedOnce: a server that prints its usage and the real
// error and exits 1 before answering (as Sentry's does without a token) is started once,
// shown failed with the line that says why, and not restarted on a timer.
func TestServerThatCannotStartIsStartedOnce(t *testing.T) {
	h := newHarness(t) // the warmer runs: saving the server starts it, as in the app
	starts := filepath.Join(t.TempDir(), "starts")
	script, err := filepath.Abs("testdata/failing/no-token.sh")
	if err != nil {
		t.Fatal(err)
	}
	v := h.save(Server{Name: "sentry", Command: "/bin/sh", Args: []string{script}, Enabled: true,
		Env: []Var{{Name: "CAIRN_TEST_STARTS", Value: starts}}})
	got := h.wait(v.ID, 20*time.Second, "failed", func(v ServerView) bool { return v.Status.State == StateFailed })
	const want = "Error: No access token was provided. Pass one with --access-token or set SENTRY_ACCESS_TOKEN."
	if e := got.Status.Error; e == nil || e.Code != apperr.MCPExited || e.Params["stderr"] != want || e.Params["code"] != "exited with code 1" {
		t.Fatalf("error %+v, want %s with the token line", got.Status.Error, apperr.MCPExited)
	}
	if got.Status.RetryAt != 0 {
		t.Fatalf("a restart is scheduled at %d", got.Status.RetryAt)
	}
	// Past several retry intervals (RestartMin is 50 ms, RestartMax 1 s): nothing more.
	time.Sleep(2500 * time.Millisecond)
	if n := markerCount(t, starts); n != 1 {
		t.Fatalf("started %d times, want once", n)
	}
	after, err := h.m.View(ctxT(t, 5*time.Second), v.ID)
	if err != nil || after.Status.State != StateFailed {
		t.Fatalf("state %s (%v), want still failed", after.Status.State, err)
	}
	// The user's restart is a new attempt: one more start, failed again.
	if _, err := h.m.Restart(ctxT(t, 20*time.Second), v.ID); !apperr.Is(err, apperr.MCPExited) {
		t.Fatalf("restart: %v", err)
	}
	if n := markerCount(t, starts); n != 2 {
		t.Fatalf("started %d times after one restart, want 2", n)
	}
}

// TestSameStderrTwiceStopsRetries: a server that exits with status 0 before answering is
// retried once; when it says the same thing again it is failed, not retried further.
func TestSameStderrTwiceStopsRetries(t *testing.T) {
	h := newHarness(t)
	starts := filepath.Join(t.TempDir(), "starts")
	srv := sh("quiet-quitter", `echo start >>"$CAIRN_TEST_STARTS"; echo "config file ~/.x.json not found" >&2; exit 0`)
	srv.Env = []Var{{Name: "CAIRN_TEST_STARTS", Value: starts}}
	v := h.save(srv)
	got := h.wait(v.ID, 20*time.Second, "failed", func(v ServerView) bool { return v.Status.State == StateFailed })
	if e := got.Status.Error; e == nil || e.Params["stderr"] != "config file ~/.x.json not found" {
		t.Fatalf("error %+v", e)
	}
	time.Sleep(1500 * time.Millisecond)
	if n := markerCount(t, starts); n != 2 {
		t.Fatalf("started %d times, want twice (once, and once more to see it fail the same way)", n)
	}
}

func TestMeaningfulLine(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"error after usage", []string{"Usage: x [options]", "", "Options:", "  --token <t>  the token (required)", "Error: No access token was provided"}, "Error: No access token was provided"},
		{"error before usage", []string{"Error: missing --root", "usage: server-filesystem DIR...", "  DIR  a directory it may use"}, "Error: missing --root"},
		{"node crash", []string{"file:///srv/index.js:3", `throw new Error("boom: token missing");`, "^", "", "Error: boom: token missing", "    at file:///srv/index.js:3:7", "", "Node.js v22.12.0"}, "Error: boom: token missing"},
		{"python traceback", []string{"Traceback (most recent call last):", `  File "/x/server.py", line 3, in <module>`, "    main()", "KeyError: 'API_KEY'"}, "KeyError: 'API_KEY'"},
		{"npm noise first", []string{"npm warn exec The following package was not found and will be installed: x@1", "npm notice New major version", "Cannot find module 'zod'"}, "Cannot find module 'zod'"},
		{"weak cause over a banner", []string{"Weather MCP v1.2", "API key not set: export WEATHER_KEY"}, "API key not set: export WEATHER_KEY"},
		{"plain first line", []string{"", "something odd happened", "and more"}, "something odd happened"},
		{"tagged error", []string{"[2026-12-01T10:00:00Z] [INFO] starting", "[2026-12-01T10:00:01Z] [ERROR] cannot bind 8080"}, "[2026-12-01T10:00:01Z] [ERROR] cannot bind 8080"},
		{"go panic", []string{"panic: runtime error: index out of range", "", "goroutine 1 [running]:"}, "panic: runtime error: index out of range"},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := meaningfulLine(tt.lines); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestProcStderrKeepsFirstAndLast: a long-running process's stderr keeps its first and
// last lines, not everything.
func TestProcStderrKeepsFirstAndLast(t *testing.T) {
	var c procStderr
	for i := range 1000 {
		c.add(strings.Repeat("x", i%7) + string(rune('a'+i%26)))
	}
	got := c.lines()
	if len(got) != stderrFirst+stderrLast || got[0] != "a" || got[len(got)-1] != c.last[(c.next+stderrLast-1)%stderrLast] {
		t.Fatalf("kept %d lines: first %q last %q", len(got), got[0], got[len(got)-1])
	}
}

// TestFailedStatusIsRecorded: the last failure of a server is stored, so another Manager
// on the same database (the next start, a CLI run) lists it failed without connecting;
// turning the server off clears it.
func TestFailedStatusIsRecorded(t *testing.T) {
	h := newHarness(t, cold)
	starts := filepath.Join(t.TempDir(), "starts")
	script, _ := filepath.Abs("testdata/failing/no-token.sh")
	v := h.save(Server{Name: "sentry", Command: "/bin/sh", Args: []string{script}, Enabled: true,
		Env: []Var{{Name: "CAIRN_TEST_STARTS", Value: starts}}})
	ctx := ctxT(t, 20*time.Second)
	if _, err := h.m.RefreshTools(ctx, v.ID); !apperr.Is(err, apperr.MCPExited) {
		t.Fatalf("refresh: %v", err)
	}
	next := func() ServerView {
		t.Helper()
		m, err := New(ctx, Config{DB: h.cfg.DB, Options: Options{LoginShell: "-"}})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		snap, err := m.Servers(ctx)
		if err != nil || len(snap.Servers) != 1 {
			t.Fatalf("servers: %+v %v", snap, err)
		}
		return snap.Servers[0]
	}
	got := next().Status
	if got.State != StateFailed || !got.Recorded || got.Error == nil || got.Error.Code != apperr.MCPExited ||
		!strings.HasPrefix(got.Error.Params["stderr"].(string), "Error: No access token was provided.") {
		t.Fatalf("recorded status %+v", got)
	}
	if n := markerCount(t, starts); n != 1 {
		t.Fatalf("started %d times, want once (listing connects nothing)", n)
	}
	if _, err := h.m.SetEnabled(ctx, v.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := h.m.SetEnabled(ctx, v.ID, true); err != nil {
		t.Fatal(err)
	}
	if got := next().Status; got.State != StateIdle || got.Recorded || got.Error != nil {
		t.Fatalf("after off and on: %+v", got)
	}
}
