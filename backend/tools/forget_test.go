package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// TestForgetLeavesNothingOfTheSession fills every per-session ledger of the pipeline and
// the spill folder for two sessions, forgets one, and checks that the ledgers are back to
// their sizes before that session, its folder is gone and the other session is intact.
func TestForgetLeavesNothingOfTheSession(t *testing.T) {
	dir := t.TempDir()
	p, _ := newPipeline(t, tools.Options{DataDir: dir}, toolstest.Huge("test_huge", 300_000))
	use := func(session string) {
		scope := toolstest.ChatScope(session)
		if _, err := p.Select(context.Background(), scope); err != nil {
			t.Fatal(err)
		}
		if o := runOne(t, p, toolstest.Call("i1", "tool_inspect", `{"name":"test_huge"}`, scope)); o.Status != tools.StatusResult {
			t.Fatalf("inspect: %s %q", o.Status, o.Content)
		}
		if o := runOne(t, p, toolstest.Call("c1", "test_huge", `{}`, scope)); o.SpillPath == "" {
			t.Fatalf("%s: nothing spilled", session)
		}
	}
	use("kept")
	l0, s0, sp0 := p.Remembered()
	use("gone")
	if l, s, sp := p.Remembered(); l != l0+1 || s != s0+1 || sp != sp0+1 {
		t.Fatalf("setup: ledgers %d %d %d, want one more than %d %d %d", l, s, sp, l0, s0, sp0)
	}

	if err := p.Forget("gone"); err != nil {
		t.Fatal(err)
	}
	if l, s, sp := p.Remembered(); l != l0 || s != s0 || sp != sp0 {
		t.Fatalf("after Forget: ledgers %d %d %d, want %d %d %d", l, s, sp, l0, s0, sp0)
	}
	if _, err := os.Stat(filepath.Join(dir, "tool-results", "gone")); !os.IsNotExist(err) {
		t.Fatalf("spilled results of the forgotten session: %v", err)
	}
	if p.Inspected("gone", "test_huge") || !p.Inspected("kept", "test_huge") {
		t.Fatal("Forget touched the wrong session's inspect ledger")
	}
	if _, err := os.Stat(filepath.Join(dir, "tool-results", "kept", "c1.txt")); err != nil {
		t.Fatalf("the other session's result: %v", err)
	}
	// Forgetting again, or a session that never ran a tool, is not an error.
	if err := p.Forget("gone"); err != nil {
		t.Fatal(err)
	}
	if err := p.Forget("never-seen"); err != nil {
		t.Fatal(err)
	}
}
