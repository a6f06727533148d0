package service

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/sandbox"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestWorkspaceChangeReachesMCPRoots: a server in roots mode workspace is offered the
// task session's workspace on the session's call, and when the session's workspace is
// changed (SetSessionWorkspace) it is offered the new one at once: server-filesystem,
// which replaces its folders with the roots, lists it without another call of that
// session.
func TestWorkspaceChangeReachesMCPRoots(t *testing.T) {
	mcptest.NeedNPM(t)
	s, _, sess := taskBackend(t, strongLocal{sandbox.Local{}})
	ctx := context.Background()
	a, _ := filepath.EvalSymlinks(t.TempDir())
	b, _ := filepath.EvalSymlinks(t.TempDir())
	if _, err := s.SetSessionWorkspace(ctx, sess.ID, a); err != nil {
		t.Fatal(err)
	}
	v, err := s.MCP.Save(ctx, mcp.Server{Name: "files", Transport: mcp.TransportStdio, Command: mcptest.Node(t),
		Args: []string{mcptest.Filesystem()}, Enabled: true, RootsMode: mcp.RootsWorkspace})
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(session string) string {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		if session != "" {
			cctx = tools.WithCall(cctx, tools.Call{ID: "c", SessionID: session, Name: "list_allowed_directories"})
		}
		res, err := s.MCP.CallTool(cctx, v.ID, "list_allowed_directories", json.RawMessage(`{}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Content
	}
	eventually := func(session, want, not string) {
		t.Helper()
		var got string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if got = allowed(session); strings.Contains(got, want) && !strings.Contains(got, not) {
				return
			}
		}
		t.Fatalf("allowed directories %q, want %s and not %s", got, want, not)
	}
	eventually(sess.ID, a, b)
	if _, err := s.SetSessionWorkspace(ctx, sess.ID, b); err != nil {
		t.Fatal(err)
	}
	eventually("", b, a)
}
