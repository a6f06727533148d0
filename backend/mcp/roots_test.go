package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestRootsModeInEffect: the automatic mode offers the workspace unless the arguments
// already name a folder (absolute, ~, ./ or ../, alone or as --flag=value) and no folders
// are configured; a chosen mode is kept as it is.
func TestRootsModeInEffect(t *testing.T) {
	dir := t.TempDir()
	home, _ := os.UserHomeDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "server.js")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		s    Server
		want RootsMode
	}{
		{"no arguments", Server{Command: "npx", Args: []string{"-y", "@playwright/mcp"}}, RootsWorkspace},
		{"an absolute folder", Server{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", dir}}, RootsNone},
		{"a folder as a flag's value", Server{Command: "srv", Args: []string{"--root=" + dir}}, RootsNone},
		{"a relative ./ folder", Server{Command: "srv", Args: []string{"./sub"}, Cwd: dir}, RootsNone},
		{"a bare word that is a folder", Server{Command: "srv", Args: []string{"sub"}, Cwd: dir}, RootsWorkspace},
		{"a script file", Server{Command: "node", Args: []string{file}}, RootsWorkspace},
		{"a folder that does not exist", Server{Command: "srv", Args: []string{filepath.Join(dir, "gone")}}, RootsWorkspace},
		{"the home folder as ~", Server{Command: "srv", Args: []string{"~"}}, map[bool]RootsMode{true: RootsNone, false: RootsWorkspace}[home != ""]},
		{"configured folders win over the arguments", Server{Command: "srv", Args: []string{dir}, Roots: []string{dir}}, RootsWorkspace},
		{"chosen: folders", Server{Command: "srv", Args: []string{dir}, Roots: []string{dir}, RootsMode: RootsFolders}, RootsFolders},
		{"chosen: workspace", Server{Command: "srv", Args: []string{dir}, RootsMode: RootsWorkspace}, RootsWorkspace},
		{"chosen: none", Server{Command: "srv", RootsMode: RootsNone}, RootsNone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.s.Transport = TransportStdio
			if got := c.s.rootsMode(); got != c.want {
				t.Fatalf("roots mode %q, want %q", got, c.want)
			}
		})
	}
}

// TestRootsModes runs server-filesystem, which replaces the folders of its arguments with
// the roots it is offered, in each mode: automatic with a folder argument keeps that
// folder even for a task session's call; workspace offers the calling session's
// workspace and follows a change of it at once (WorkspaceChanged, list_changed); folders
// offers only the configured ones.
func TestRootsModes(t *testing.T) {
	mcptest.NeedNPM(t)
	arg, wsA, wsB, fixed := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	var mu sync.Mutex
	spaces := map[string]string{"task": wsA}
	h := newHarness(t, func(c *Config) {
		c.Workspace = func(_ context.Context, id string) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			return spaces[id], nil
		}
	})
	fs := func(name string, mode RootsMode, roots ...string) ServerView {
		return h.save(Server{Name: name, Command: mcptest.Node(t), Args: []string{mcptest.Filesystem(), arg}, Enabled: true, RootsMode: mode, Roots: roots})
	}
	auto, ws, folders := fs("auto", RootsAuto), fs("ws", RootsWorkspace), fs("folders", RootsFolders, fixed)
	for _, v := range []ServerView{auto, ws, folders} {
		h.wait(v.ID, 60*time.Second, "ready", ready)
	}
	if auto.RootsModeInEffect != RootsNone || ws.RootsModeInEffect != RootsWorkspace {
		t.Fatalf("modes in effect: auto %q, ws %q", auto.RootsModeInEffect, ws.RootsModeInEffect)
	}
	allowed := func(id, session string) string {
		t.Helper()
		ctx := ctxT(t, 30*time.Second)
		if session != "" {
			ctx = tools.WithCall(ctx, tools.Call{ID: "c", SessionID: session, Name: "list_allowed_directories"})
		}
		res, err := h.m.CallTool(ctx, id, "list_allowed_directories", json.RawMessage(`{}`), nil)
		if err != nil || res.IsError {
			t.Fatalf("list_allowed_directories: %v %+v", err, res)
		}
		return res.Content
	}
	// server-filesystem re-lists after list_changed: its answer follows shortly.
	eventually := func(id, session, want string, not ...string) {
		t.Helper()
		var got string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			got = allowed(id, session)
			if strings.Contains(got, want) && !containsAny(got, not) {
				return
			}
		}
		t.Fatalf("%s from %q: %s, want %s and none of %v", id, session, got, want, not)
	}
	eventually(auto.ID, "task", arg, wsA)
	eventually(ws.ID, "task", wsA, arg)
	eventually(folders.ID, "task", fixed, arg, wsA)

	mu.Lock()
	spaces["task"] = wsB
	mu.Unlock()
	h.m.WorkspaceChanged("task", wsB)
	eventually(ws.ID, "", wsB, wsA) // no call of the task session in between
	eventually(folders.ID, "", fixed, wsB)
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
