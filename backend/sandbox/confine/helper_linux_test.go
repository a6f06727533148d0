//go:build linux

package confine

import (
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// TestNothingAllocatesAfterTheLimits: once the helper has set its address space limit,
// an allocation that needs a fresh mapping kills it with "cannot allocate memory" instead
// of running the command, so setting the limits and the exec itself must not allocate.
func TestNothingAllocatesAfterTheLimits(t *testing.T) {
	x, err := prepareExec("/nonexistent/cairn-command", []string{"cairn-command", "--flag"}, []string{"A=b", "PATH=/bin"})
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		if err := x.exec(); err != unix.ENOENT {
			t.Fatalf("exec of a missing file: %v, want ENOENT", err)
		}
	}); n != 0 {
		t.Fatalf("exec allocates %.0f times", n)
	}

	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	l := Limits{MemoryBytes: 1 << 30, Processes: 64, OpenFiles: 128, CPUSeconds: 60, FileBytes: 1 << 20}
	if n := testing.AllocsPerRun(20, func() {
		if err := prlimits(child.Process.Pid, l); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("setting the limits allocates %.0f times", n)
	}
	var got unix.Rlimit
	if err := unix.Prlimit(child.Process.Pid, unix.RLIMIT_AS, nil, &got); err != nil || got.Max != 1<<30 {
		t.Fatalf("the child's address space limit = %+v (%v), want 1 GiB", got, err)
	}
}
