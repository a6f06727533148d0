package pidcheck

import (
	"os"
	"os/exec"
	"testing"
)

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	if Alive(0) || Alive(-1) {
		t.Fatal("non-pids are alive")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !Alive(pid) {
		t.Fatal("running child is not alive")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not reaped yet: a zombie, which must count as dead.
	deadline := 0
	for Alive(pid) && deadline < 1000 {
		deadline++
		if err := exec.Command("true").Run(); err != nil {
			t.Fatal(err)
		}
	}
	if Alive(pid) {
		t.Fatal("killed (zombie) child still counts as alive")
	}
	_ = cmd.Wait()
	if Alive(pid) {
		t.Fatal("reaped child still alive")
	}
}
