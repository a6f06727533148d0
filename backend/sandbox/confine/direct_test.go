//go:build linux

package confine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStrongDirect: a plain command at the strong level runs without the helper, under
// the same seccomp filter, with no_new_privs and the run's limits; a file operation and
// a command not found still go through the helper.
func TestStrongDirect(t *testing.T) {
	if !slices.Contains(levels(t), Strong) {
		t.Fatal("this machine has no strong level")
	}
	s := newSandbox(t, Strong)
	s.Status(context.Background())
	if s.noDirect {
		t.Fatal("the probe found that bwrap cannot run a command directly")
	}
	pol := Policy{Workspace: t.TempDir(), Limits: Limits{OpenFiles: 77, Processes: 99}}
	r := run(t, s, pol, `grep -E "^(Seccomp|NoNewPrivs|CapEff):" /proc/self/status; grep -E "^Max (open files|processes)" /proc/self/limits`)
	for _, want := range []string{"Seccomp:\t2", "NoNewPrivs:\t1", "CapEff:\t0000000000000000", "Max open files 77 77", "Max processes 99 99"} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), strings.Join(strings.Fields(want), " ")) {
			t.Fatalf("want %q in %+v", want, r)
		}
	}
	l := layout{pol: Policy{Workspace: t.TempDir(), Dir: "/"}, exe: s.exe, home: "/h", tmp: "/tmp"}
	for argv0, direct := range map[string]bool{"true": true, "no-such-command-x": false} {
		_, h, err := s.command(Strong, l, []string{argv0}, "", false)
		if err != nil || (h != nil) != direct {
			t.Fatalf("%s: runs directly %v, want %v (%v)", argv0, h != nil, direct, err)
		}
		h.closeChildEnds()
		h.close()
	}
	if r := run(t, s, pol, "exec no-such-command-x"); r.code != 127 {
		t.Fatalf("want 127 for a missing command: %+v", r)
	}
}

// TestStrongDirectFallsBack: with a bwrap that cannot run a command directly (an older
// one, without --chmod), the probe sends every command through the helper.
func TestStrongDirectFallsBack(t *testing.T) {
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\nfor a; do [ \"$a\" = --chmod ] && { echo 'bwrap: Unknown option --chmod' >&2; exit 1; }; done\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(old, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := New(filepath.Join(t.TempDir(), "data"), Options{Exe: newSandbox(t, "").exe, Force: Strong, Bwrap: old})
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Status(context.Background()); st.Level != Strong || !s.noDirect {
		t.Fatalf("want strong through the helper, got %s (noDirect %v): %v", st.Level, s.noDirect, st.Reasons)
	}
	ok(t, run(t, s, Policy{Workspace: t.TempDir()}, `grep "^Seccomp:" /proc/self/status`), "Seccomp:\t2")
}
