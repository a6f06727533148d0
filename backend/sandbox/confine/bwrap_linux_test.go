//go:build linux

package confine

import "testing"

// TestStrongBwrapGetsNoEnvironment: bubblewrap's own process stays inside the sandbox as
// its pid 1, whose environ a command could read where Landlock does not scope ptrace
// (older kernels), so bwrap is started with an empty environment, not Cairn's.
func TestStrongBwrapGetsNoEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-"+secret)
	s := newSandbox(t, Strong)
	for _, op := range []string{"", probeOp} { // a command run directly, and through the helper
		cmd, h, err := s.command(Strong, layout{pol: Policy{Workspace: t.TempDir(), Dir: "/"}, exe: s.exe, home: "/home/sandbox", tmp: "/tmp"}, []string{"true"}, op, false)
		if err != nil {
			t.Fatal(err)
		}
		h.closeChildEnds()
		h.close()
		if cmd.Env == nil || len(cmd.Env) != 0 {
			t.Fatalf("bwrap starts with the environment %q, want none (op %q)", cmd.Env, op)
		}
	}
}
