//go:build linux

package mcp

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/mcp/mcptest"
)

var (
	orphanOnce sync.Once
	orphanBin  string
	orphanErr  error
)

// buildOrphan builds testdata/orphan, a tiny Cairn that starts one server and waits to
// be killed.
func buildOrphan(t *testing.T) string {
	orphanOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-orphan-")
		if err != nil {
			orphanErr = err
			return
		}
		orphanBin = filepath.Join(dir, "orphan")
		out, err := exec.Command("go", "build", "-o", orphanBin, "./testdata/orphan").CombinedOutput()
		if err != nil {
			orphanErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if orphanErr != nil {
		t.Fatal(orphanErr)
	}
	return orphanBin
}

// startOrphan runs the helper with a server command and returns it with the server's
// process group once the server answered initialize.
func startOrphan(t *testing.T, dataDir string, command ...string) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command(buildOrphan(t), append([]string{dataDir}, command...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
	}()
	select {
	case l := <-line:
		pg, err := strconv.Atoi(strings.TrimPrefix(l, "READY "))
		if err != nil {
			t.Fatalf("helper said %q", l)
		}
		return cmd, pg
	case <-time.After(60 * time.Second):
		t.Fatal("helper did not get ready")
	}
	return nil, 0
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// waitGone polls /proc until every pid is gone: another process's death reaches no
// channel of ours.
func waitGone(t *testing.T, pids []int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		left := slices.DeleteFunc(slices.Clone(pids), func(p int) bool { return !alive(p) })
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running %s after Cairn was killed: %v", d, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.ReplaceAll(string(b), "\x00", " ")
}

// TestNoOrphansWhenCairnIsKilled SIGKILLs a Cairn (the helper binary) whose server runs
// behind a wrapper, the way npx runs node: the kernel kills the direct child
// (Pdeathsig), the real server sees stdin close and exits.
func TestNoOrphansWhenCairnIsKilled(t *testing.T) {
	mcptest.NeedNPM(t)
	script := fmt.Sprintf("%q %q stdio; true", mcptest.Node(t), mcptest.Everything())
	cmd, pg := startOrphan(t, t.TempDir(), "/bin/sh", "-c", script)
	members := groupMembers(pg)
	if len(members) < 2 {
		t.Fatalf("want the wrapper and node in group %d, got %v", pg, members)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, members, 10*time.Second)
}

// TestNextStartSweepsWhatSurvived: a child that ignores stdin (here a background sleep a
// server started) outlives a SIGKILLed Cairn; the next Cairn on the same data directory
// ends it, and only it.
func TestNextStartSweepsWhatSurvived(t *testing.T) {
	mcptest.NeedNPM(t)
	dir := t.TempDir()
	bystander := exec.Command("sleep", "300")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bystander.Process.Kill(); _ = bystander.Wait() }()

	script := fmt.Sprintf("sleep 300 & exec %q %q stdio", mcptest.Node(t), mcptest.Everything())
	cmd, pg := startOrphan(t, dir, "/bin/sh", "-c", script)
	members := groupMembers(pg)
	var sleeper int
	for _, p := range members {
		if strings.HasPrefix(cmdline(p), "sleep") {
			sleeper = p
		}
	}
	if sleeper == 0 {
		t.Fatalf("no sleep in %v", members)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	waitGone(t, []int{pg}, 10*time.Second) // node: killed with its parent
	if !alive(sleeper) {
		t.Fatal("the sleeper died on its own; the sweep is not exercised")
	}
	db, err := mcptest.OpenDBPath(filepath.Join(dir, "cairn.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := New(context.Background(), Config{DB: db, DataDir: dir, Options: Options{LoginShell: "-"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	waitGone(t, []int{sleeper}, 5*time.Second)
	if !alive(bystander.Process.Pid) {
		t.Fatal("the sweep killed an unrelated process")
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "mcp", "run", "*.pids")); len(files) != 0 {
		t.Fatalf("pid records left: %v", files)
	}
}
