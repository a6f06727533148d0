package pidcheck

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

func TestOwnerSurvivesPIDReuse(t *testing.T) {
	me := Self()
	if me.PID != os.Getpid() {
		t.Fatalf("Self().PID = %d", me.PID)
	}
	if runtime.GOOS == "linux" || runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		if me.Start == 0 {
			t.Fatal("no start time for this process")
		}
	}
	tests := []struct {
		name  string
		owner Owner
		alive bool
	}{
		{"this process", me, true},
		{"PID only (an older row)", Owner{PID: me.PID}, true},
		{"same PID, another start: the PID was reused", Owner{PID: me.PID, Start: me.Start + 1}, me.Start == 0},
		{"no PID", Owner{Start: me.Start}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.owner.Alive(); got != tt.alive {
				t.Fatalf("Alive(%+v) = %v, want %v", tt.owner, got, tt.alive)
			}
		})
	}
}

func TestOwnerOfAChild(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	st, _ := StartTime(cmd.Process.Pid)
	o := Owner{PID: cmd.Process.Pid, Start: st}
	if !o.Alive() {
		t.Fatal("running child is not alive")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if o.Alive() {
		t.Fatal("reaped child still alive")
	}
}
