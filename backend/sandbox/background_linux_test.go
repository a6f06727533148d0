package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/tasks"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestTaskStopKillsTheTree: task_stop ends the command and what it started in the
// background of its own shell.
func TestTaskStopKillsTheTree(t *testing.T) {
	r := newBackgroundRig(t)
	id := r.start("sleep 300 & echo $! > child.pid; echo started; wait")
	pidFile := filepath.Join(r.ws, "child.pid")
	var pid int
	deadline := time.Now().Add(10 * time.Second)
	for pid == 0 {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if time.Now().After(deadline) {
			t.Fatal("the command never started its child")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !processRuns(pid) {
		t.Fatalf("child %d is not running", pid)
	}
	o := r.call(tasks.StopTool, map[string]any{"id": id}, nil)
	if o.Status != tools.StatusResult || !strings.Contains(o.Content, "stopped") {
		t.Fatalf("stop: %s %q", o.Status, o.Content)
	}
	for deadline = time.Now().Add(5 * time.Second); processRuns(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("child %d outlived task_stop", pid)
		}
	}
	if tk, _ := r.tasks.Get("s1", id); tk.State != tasks.StateStopped {
		t.Fatalf("task %+v", tk)
	}
}

// processRuns reports whether pid is a live process (a zombie waiting for its parent to
// reap it counts as ended).
func processRuns(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
