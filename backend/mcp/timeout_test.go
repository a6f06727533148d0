package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// TestImportReadsTimeouts: the "timeout" key other clients write (seconds for Cline and
// Roo Code, milliseconds for Gemini CLI), Codex's names and Cairn's own are read.
func TestImportReadsTimeouts(t *testing.T) {
	tests := []struct {
		name             string
		entry            string
		connect, call    int
		wantErrSubstring string
	}{
		{"Cline seconds", `{"command":"x","timeout":60}`, 0, 60000, ""},
		{"Gemini milliseconds", `{"command":"x","timeout":600000}`, 0, 600000, ""},
		{"an hour in seconds", `{"command":"x","timeout":3600}`, 0, 3600000, ""},
		{"duration text", `{"command":"x","timeout":"90s"}`, 0, 90000, ""},
		{"number text", `{"command":"x","timeout":"30"}`, 0, 30000, ""},
		{"Codex names", `{"command":"x","startup_timeout_sec":20,"tool_timeout_sec":120}`, 20000, 120000, ""},
		{"Cairn's own win", `{"command":"x","connectTimeoutMs":2500,"callTimeoutMs":1500,"timeout":60}`, 2500, 1500, ""},
		{"none", `{"command":"x"}`, 0, 0, ""},
		{"negative", `{"command":"x","timeout":-1}`, 0, 0, `"timeout" must be a timeout`},
		{"not a duration", `{"command":"x","timeout":"soon"}`, 0, 0, `"timeout" must be a timeout`},
		{"too long", `{"command":"x","tool_timeout_sec":1e9}`, 0, 0, `"tool_timeout_sec" must be a timeout`},
		{"not a number", `{"command":"x","startup_timeout_ms":true}`, 0, 0, `"startup_timeout_ms" must be a timeout`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := entryServer("s", json.RawMessage(tt.entry))
			if tt.wantErrSubstring != "" {
				if ae := apperr.From(err); ae == nil || ae.Code != apperr.MCPServerInvalid || !strings.Contains(ae.Message, tt.wantErrSubstring) {
					t.Fatalf("err = %v, want %q", err, tt.wantErrSubstring)
				}
				return
			}
			if err != nil || srv.ConnectTimeoutMs != tt.connect || srv.CallTimeoutMs != tt.call {
				t.Fatalf("connect %d call %d (%v), want %d %d", srv.ConnectTimeoutMs, srv.CallTimeoutMs, err, tt.connect, tt.call)
			}
		})
	}
}

// TestImportedTimeoutsUpdateAndRoundTrip: an import that changes only a timeout updates
// the server, one that names none keeps the set ones, and an export imports unchanged.
func TestImportedTimeoutsUpdateAndRoundTrip(t *testing.T) {
	h := newHarness(t, cold)
	ctx := context.Background()
	imp := func(doc string) ImportEntry {
		t.Helper()
		rep, err := h.m.Import(ctx, []byte(doc))
		if err != nil || len(rep.Entries) != 1 {
			t.Fatalf("import: %+v %v", rep, err)
		}
		return rep.Entries[0]
	}
	e := imp(`{"mcpServers":{"slow":{"command":"node","args":["s.js"],"timeout":120}}}`)
	if e.Status != ImportAdded {
		t.Fatalf("first import %+v", e)
	}
	view := func() ServerView {
		v, err := h.m.View(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := view(); v.CallTimeoutMs != 120000 {
		t.Fatalf("call timeout %d", v.CallTimeoutMs)
	}
	if got := imp(`{"mcpServers":{"slow":{"command":"node","args":["s.js"],"timeout":300}}}`); got.Status != ImportUpdated || view().CallTimeoutMs != 300000 {
		t.Fatalf("changed timeout: %+v, %d", got, view().CallTimeoutMs)
	}
	if got := imp(`{"mcpServers":{"slow":{"command":"node","args":["s.js"]}}}`); got.Status != ImportUnchanged || view().CallTimeoutMs != 300000 {
		t.Fatalf("no timeout given: %+v, %d", got, view().CallTimeoutMs)
	}
	v := view()
	v.ConnectTimeoutMs = 45000
	h.save(v.Server)
	ex, err := h.m.Export(ctx, false)
	if err != nil || !strings.Contains(ex.JSON, `"callTimeoutMs": 300000`) || !strings.Contains(ex.JSON, `"connectTimeoutMs": 45000`) {
		t.Fatalf("export %s %v", ex.JSON, err)
	}
	if got := imp(ex.JSON); got.Status != ImportUnchanged {
		t.Fatalf("re-import of the export: %+v", got)
	}
}

// TestCallTimeoutSaysWhichSetting: a call that outlives the server's call timeout fails
// with mcp_call_timeout naming the server, the tool and the seconds, and the session
// stays usable.
func TestCallTimeoutSaysWhichSetting(t *testing.T) {
	h := newHarness(t, cold)
	s := everything(t, "slowpoke")
	s.CallTimeoutMs = 700
	v := h.save(s)
	start := time.Now()
	_, err := h.call(v.ID, "trigger-long-running-operation", `{"duration":20,"steps":4}`, nil)
	ae := wantCode(t, err, apperr.MCPCallTimeout)
	if ae.Params["server"] != "slowpoke" || ae.Params["tool"] != "trigger-long-running-operation" || ae.Params["seconds"] != 1 ||
		!strings.Contains(ae.Message, "call timeout") || time.Since(start) > 15*time.Second {
		t.Fatalf("error %+v after %s", ae, time.Since(start))
	}
	if ae.Action == nil || ae.Action.Target != "mcp" {
		t.Fatalf("action %+v", ae.Action)
	}
	if res, err := h.call(v.ID, "echo", `{"message":"still here"}`, nil); err != nil || res.Content != "Echo: still here" {
		t.Fatalf("after the timeout: %+v %v", res, err)
	}
	// The pipeline's bound stays behind the server's own, so this error is what shows.
	if callBackstop(700*time.Millisecond) <= 700*time.Millisecond || callBackstop(0) != 0 {
		t.Fatal("backstop not behind the call timeout")
	}
}

// TestConnectTimeoutSaysWhichSetting: the connect timeout's error names the setting.
func TestConnectTimeoutSaysWhichSetting(t *testing.T) {
	h := newHarness(t, cold)
	v := h.save(Server{Name: "sleeper", Command: "sleep", Args: []string{"300"}, Enabled: true, ConnectTimeoutMs: 1200})
	_, err := h.m.RefreshTools(ctxT(t, 20*time.Second), v.ID)
	ae := wantCode(t, err, apperr.MCPConnectTimeout)
	if ae.Params["seconds"] != 1 || !strings.Contains(ae.Message, "connect timeout") || !strings.Contains(ae.Message, "--connect-timeout") {
		t.Fatalf("error %+v", ae)
	}
}
