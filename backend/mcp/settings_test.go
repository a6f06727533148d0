package mcp

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/mcp/logring"
)

// TestTestRestartAndSnapshot: "test" tries an unsaved config without touching anything,
// restart replaces the process, and the snapshot carries the topic's seq.
func TestTestRestartAndSnapshot(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t, 60*time.Second)
	rep, err := h.m.Test(ctx, everything(t, "draft"))
	if err != nil || !rep.OK || rep.Transport != TransportStdio || !slices.Contains(rep.Tools, "echo") || rep.ServerInfo.Name == "" {
		t.Fatalf("%+v %v", rep, err)
	}
	if !slices.ContainsFunc(rep.Log, func(l logring.Line) bool { return l.Stream == logring.StreamStderr }) {
		t.Fatalf("test log has no stderr: %+v", rep.Log)
	}
	if snap, _ := h.m.Servers(ctx); len(snap.Servers) != 0 {
		t.Fatal("test saved something")
	}
	bad, err := h.m.Test(ctx, Server{Name: "bad", Command: "no-such-mcp-binary"})
	if err != nil || bad.OK || bad.Error == nil || bad.Error.Code != apperr.MCPCommandNotFound {
		t.Fatalf("%+v %v", bad, err)
	}
	if _, err := h.m.Test(ctx, Server{Name: "", Command: "x"}); !apperr.Is(err, apperr.MCPServerInvalid) {
		t.Fatalf("invalid config: %v", err)
	}

	v := h.save(everything(t, "Restartable"))
	v = h.wait(v.ID, 30*time.Second, "ready", ready)
	r, err := h.m.Restart(ctx, v.ID)
	if err != nil || r.Status.State != StateReady || r.Status.Pid == v.Status.Pid || r.Status.Pid == 0 {
		t.Fatalf("restart: %+v %v", r.Status, err)
	}
	// The snapshot's seq is the bus's at the time it was taken (the server's stderr lines
	// and its list_changed refresh may still be publishing around it).
	before := h.bus.Seq(events.TopicMCP)
	snap, err := h.m.Servers(ctx)
	after := h.bus.Seq(events.TopicMCP)
	if err != nil || len(snap.Servers) != 1 || snap.Seq < before || snap.Seq > after || snap.Seq == 0 {
		t.Fatalf("snapshot seq %d (bus %d before, %d after) %v", snap.Seq, before, after, err)
	}

	// Validation and name clashes.
	for _, s := range []Server{
		{Name: "x", Transport: TransportStdio},
		{Name: "x", URL: "ftp://nope"},
		{Name: "x", Command: "node", Env: []Var{{Name: "BAD-NAME", Value: "1"}}},
		{Name: "x", URL: "http://127.0.0.1:1/mcp", Headers: []Var{{Name: "Bad Header", Value: "1"}}},
		{Name: "x", Transport: "websocket", URL: "ws://x"},
	} {
		if _, err := h.m.Save(context.Background(), s); !apperr.Is(err, apperr.MCPServerInvalid) {
			t.Errorf("%+v: %v", s, err)
		}
	}
	_, err = h.m.Save(context.Background(), Server{Name: "RESTARTABLE", Command: "node"})
	if ae := wantCode(t, err, apperr.MCPServerExists); !strings.EqualFold(ae.Params["name"].(string), "restartable") {
		t.Fatalf("%v", ae.Params)
	}
	if _, err := h.m.View(ctx, "nope"); !apperr.Is(err, apperr.MCPServerNotFound) {
		t.Fatalf("%v", err)
	}
}
