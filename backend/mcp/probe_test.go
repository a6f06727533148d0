package mcp

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// discoverCounter counts server/discover requests in front of a go-sdk Streamable HTTP
// server. legacy makes it answer them like the TypeScript SDK's servers of today answer
// any request before initialize (HTTP 400, "Server not initialized").
type discoverCounter struct {
	next      http.Handler
	legacy    bool
	discovers atomic.Int32
}

func (d *discoverCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if strings.Contains(string(body), `"server/discover"`) {
			d.discovers.Add(1)
			if d.legacy {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`)
				return
			}
		}
	}
	d.next.ServeHTTP(w, r)
}

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestProtocolProbe: Cairn offers server/discover on first contact, so a server that
// speaks the newer protocol gets it; a server that answered with an error is asked with
// initialize directly on later connects (no wasted round trip) until reprobeAfter has
// passed, and is then offered the probe again.
func TestProtocolProbe(t *testing.T) {
	cases := []struct {
		name    string
		legacy  bool
		version string
		// discovers seen after: first connect, reconnect, reconnect reprobeAfter later.
		discovers [3]int32
	}{
		{"server of today", true, LegacyProtocolVersion, [3]int32{1, 1, 2}},
		{"server with server/discover", false, modernProtocolVersion, [3]int32{1, 2, 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// go-sdk serves the newer protocol on its stateless handler only.
			opts := &mcp.StreamableHTTPOptions{Stateless: !tc.legacy}
			dc := &discoverCounter{legacy: tc.legacy, next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return goServer() }, opts)}
			srv := httptest.NewServer(dc)
			t.Cleanup(srv.Close)
			clock := &testClock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
			h := newHarness(t, cold, func(c *Config) { c.Options.Now = clock.now })
			v := h.save(Server{Name: "probe", URL: srv.URL, Enabled: true})
			ctx := ctxT(t, 30*time.Second)
			for i, want := range tc.discovers {
				if i == 2 {
					clock.add(reprobeAfter + time.Minute)
				}
				if _, err := h.m.Restart(ctx, v.ID); err != nil {
					t.Fatalf("connect %d: %v", i+1, err)
				}
				if got := dc.discovers.Load(); got != want {
					t.Fatalf("after connect %d: %d server/discover requests, want %d", i+1, got, want)
				}
				got, err := h.m.View(ctx, v.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Status.ServerInfo == nil || got.Status.ServerInfo.ProtocolVersion != tc.version {
					t.Fatalf("after connect %d: server info %+v, want protocol %s", i+1, got.Status.ServerInfo, tc.version)
				}
				if got.Status.Transport != TransportHTTP || got.Status.FallbackStatus != 0 {
					t.Fatalf("after connect %d: a rejected probe must not look like an SSE server: %+v", i+1, got.Status)
				}
			}
			res, err := h.call(v.ID, "add", `{"A":1,"B":2}`, nil)
			if err != nil || !strings.HasPrefix(res.Content, "sum 3") {
				t.Fatalf("call: %+v %v", res, err)
			}
		})
	}
}

// TestProbeThatKillsTheServer: a stdio server is not probed before it has connected once
// (so a server that cannot start is started once per attempt); one that exits on a
// request before initialize (as some do) is then connected again with initialize only,
// and not probed on the next connect.
func TestProbeThatKillsTheServer(t *testing.T) {
	mcptest.NeedNPM(t)
	script := `read -r first
case "$first" in *'"server/discover"'*) echo "unexpected request before initialize" >&2; exit 3;; esac
{ printf '%s\n' "$first"; exec cat; } | exec "$0" "$1" stdio`
	h := newHarness(t, cold)
	v := h.save(Server{Name: "picky", Transport: TransportStdio, Command: "sh",
		Args: []string{"-c", script, mcptest.Node(t), mcptest.Everything()}, Enabled: true})
	ctx := ctxT(t, 60*time.Second)
	for i := range 3 {
		if _, err := h.m.Restart(ctx, v.ID); err != nil {
			t.Fatalf("connect %d: %v", i+1, err)
		}
	}
	lines, err := h.m.Logs(v.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var retries, exits, starts int
	for _, l := range lines {
		if strings.Contains(l.Text, "trying initialize only") {
			retries++
		}
		if l.Stream == "stderr" && strings.Contains(l.Text, "unexpected request before initialize") {
			exits++
		}
		if l.Stream == "event" && strings.HasPrefix(l.Text, "started ") {
			starts++
		}
	}
	// Connect 1: no probe (first contact). 2: probed, exits, retried. 3: not probed.
	if retries != 1 || exits != 1 || starts != 4 {
		t.Fatalf("want one failed probe and one retry over three connects (4 starts), got %d retries, %d exits, %d starts; log:\n%+v", retries, exits, starts, lines)
	}
	if res, err := h.call(v.ID, "echo", `{"message":"hi"}`, nil); err != nil || !strings.Contains(res.Content, "hi") {
		t.Fatalf("call: %+v %v", res, err)
	}
}

// TestStdoutNoiseIsSkipped: a server that prints something other than JSON-RPC on stdout
// (a banner, a stray log line) keeps its session; the line shows in the server's log.
func TestStdoutNoiseIsSkipped(t *testing.T) {
	mcptest.NeedNPM(t)
	h := newHarness(t, cold)
	v := h.save(Server{Name: "chatty", Transport: TransportStdio, Command: "sh",
		Args: []string{"-c", `echo "Weather server v1.2 starting…"; echo; exec "$0" "$1" stdio`, mcptest.Node(t), mcptest.Everything()}, Enabled: true})
	ctx := ctxT(t, 60*time.Second)
	if _, err := h.m.RefreshTools(ctx, v.ID); err != nil {
		t.Fatalf("connect: %v", err)
	}
	if res, err := h.call(v.ID, "echo", `{"message":"still here"}`, nil); err != nil || !strings.Contains(res.Content, "still here") {
		t.Fatalf("call: %+v %v", res, err)
	}
	lines, err := h.m.Logs(v.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range lines {
		found = found || strings.Contains(l.Text, "not a JSON-RPC message: Weather server v1.2 starting…")
	}
	if !found {
		t.Fatalf("the skipped line is not in the log: %+v", lines)
	}
}

// TestProbeNeverAnswered: a server that silently drops a method it does not know costs
// one connect timeout (once it has connected before: first contact over stdio is not
// probed); the next connect skips the probe and works.
func TestProbeNeverAnswered(t *testing.T) {
	mcptest.NeedNPM(t)
	script := `read -r first
case "$first" in *'"server/discover"'*) first="";; esac
{ if [ -n "$first" ]; then printf '%s\n' "$first"; fi; exec cat; } | exec "$0" "$1" stdio`
	h := newHarness(t, cold)
	v := h.save(Server{Name: "mute", Transport: TransportStdio, Command: "sh", ConnectTimeoutMs: 1500,
		Args: []string{"-c", script, mcptest.Node(t), mcptest.Everything()}, Enabled: true})
	ctx := ctxT(t, 60*time.Second)
	if _, err := h.m.RefreshTools(ctx, v.ID); err != nil {
		t.Fatalf("first contact (not probed): %v", err)
	}
	_, err := h.m.Restart(ctx, v.ID)
	wantCode(t, err, apperr.MCPConnectTimeout)
	if _, err := h.m.Restart(ctx, v.ID); err != nil {
		t.Fatalf("the connect after the timeout: %v", err)
	}
	if res, err := h.call(v.ID, "echo", `{"message":"hi"}`, nil); err != nil || !strings.Contains(res.Content, "hi") {
		t.Fatalf("call: %+v %v", res, err)
	}
	// Remembered beyond this process: the cache says the probe was offered.
	if probe, _ := h.m.shouldProbe(ctx, v.ID, TransportStdio); probe {
		t.Fatal("a new process would offer the probe again at once")
	}
}
