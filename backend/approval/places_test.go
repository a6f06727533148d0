package approval_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/permission"
)

// fakePlaces serves MCP servers' places by id.
type fakePlaces struct {
	mu sync.Mutex
	m  map[string]approval.ServerPlaces
}

func (f *fakePlaces) ServerPlaces(id string) (approval.ServerPlaces, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.m[id]
	return p, ok
}

// TestMCPRelativePathsStartInTheServersDirectories: an MCP tool's relative path is placed
// in its server's roots, working directory and the directories its arguments name, so
// a deny rule on a folder holds for it; a server Cairn knows no directory of leaves the
// path unresolved, and then every deny rule with a path holds.
func TestMCPRelativePathsStartInTheServersDirectories(t *testing.T) {
	e := newEnv(t)
	w := &counting{}
	if err := e.reg.Register(w.entry("mcp__fs__write", "mcp:fs", pathSchema, false, false)); err != nil {
		t.Fatal(err)
	}
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	elsewhere := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "protected"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range []permission.Rule{
		{Behavior: permission.Deny, Path: filepath.Join(ws, "protected", "**")},
		{Behavior: permission.Allow, Tool: "mcp__fs__write"},
	} {
		if _, err := e.svc.SaveRule(e.ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	sample := func(path string) approval.Sample {
		b, _ := json.Marshal(map[string]string{"path": path})
		return approval.Sample{Tool: "mcp__fs__write", Args: b, SessionID: "s1"}
	}
	check := func(name, path string, want permission.Behavior) {
		t.Helper()
		res, err := e.svc.TestRule(e.ctx, sample(path))
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict.Behavior != want {
			t.Errorf("%s: %q → %s (%s), want %s; paths %+v", name, path, res.Verdict.Behavior, res.Verdict.Reason, want, res.Paths)
		}
	}
	check("no places known", "free/x", permission.Deny)

	places := e.places
	tests := []struct {
		name   string
		places approval.ServerPlaces
		path   string
		want   permission.Behavior
	}{
		{"directory argument", approval.ServerPlaces{Dir: elsewhere, Args: []string{"/srv/fs.js", ws}}, "protected/keep.txt", permission.Deny},
		{"directory argument, elsewhere", approval.ServerPlaces{Dir: elsewhere, Args: []string{"/srv/fs.js", ws}}, "free/x", permission.Allow},
		{"flag value", approval.ServerPlaces{Dir: elsewhere, Args: []string{"--root=" + ws}}, "protected/keep.txt", permission.Deny},
		{"relative argument", approval.ServerPlaces{Dir: filepath.Dir(ws), Args: []string{filepath.Base(ws)}}, "protected/keep.txt", permission.Deny},
		{"working directory", approval.ServerPlaces{Dir: ws}, "protected/keep.txt", permission.Deny},
		{"root", approval.ServerPlaces{Dir: elsewhere, Roots: []string{ws}}, "protected/keep.txt", permission.Deny},
		{"remote with a root", approval.ServerPlaces{Remote: true, Roots: []string{ws}}, "protected/keep.txt", permission.Deny},
		{"remote without roots", approval.ServerPlaces{Remote: true, Dir: elsewhere}, "free/x", permission.Deny},
		{"the server's own home", approval.ServerPlaces{Dir: elsewhere, Home: ws}, "~/protected/keep.txt", permission.Deny},
		{"a directory in the server's home", approval.ServerPlaces{Dir: elsewhere, Home: filepath.Dir(ws), Args: []string{"~/" + filepath.Base(ws)}}, "protected/keep.txt", permission.Deny},
		{"arguments that are not directories", approval.ServerPlaces{Dir: elsewhere, Args: []string{"-y", filepath.Join(ws, "nope")}}, "free/x", permission.Allow},
	}
	for _, tt := range tests {
		places.mu.Lock()
		places.m["fs"] = tt.places
		places.mu.Unlock()
		check(tt.name, tt.path, tt.want)
	}
	places.mu.Lock()
	delete(places.m, "fs")
	places.mu.Unlock()
	check("a server it does not know", "free/x", permission.Deny)

	// Through the pipeline: the denied call never runs, the allowed one does.
	places.mu.Lock()
	places.m["fs"] = approval.ServerPlaces{Dir: elsewhere, Args: []string{ws}}
	places.mu.Unlock()
	outs := waitFor(t, e.run(e.ctx, nil,
		call("c1", "mcp__fs__write", `{"path":"protected/keep.txt"}`, "s1"),
		call("c2", "mcp__fs__write", `{"path":"free/x"}`, "s1")), "the batch")
	if outs[0].Status != "tool-error" || outs[1].Status != "tool-result" || w.n.Load() != 1 {
		t.Fatalf("outcomes %+v, runs %d", outs, w.n.Load())
	}
}
