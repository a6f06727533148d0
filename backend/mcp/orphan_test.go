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
	"syscall"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/mcp/proc"
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
	return startOrphanArgs(t, append([]string{dataDir}, command...))
}

func startOrphanArgs(t *testing.T, args []string) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command(buildOrphan(t), args...)
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

// TestSetsidDescendantIsSwept: a server starts a grandchild that leaves its process group
// and session (setsid, as Puppeteer's Chromium does), and Cairn is SIGKILLed. The
// grandchild survives the kill; the next Cairn on the data directory ends it, found by its
// cgroup where the system allows one, else by the marker every descendant inherits. No
// process of that Cairn's servers is left.
func TestSetsidDescendantIsSwept(t *testing.T) {
	mcptest.NeedNPM(t)
	for _, tc := range []struct {
		name   string
		flags  []string
		cgroup bool
	}{{"cgroup", nil, true}, {"marker", []string{"-no-cgroup"}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(t.TempDir(), "grandchild")
			script := fmt.Sprintf(`setsid sh -c 'echo $$ > %q; exec sleep 300' & exec %q %q stdio`, pidFile, mcptest.Node(t), mcptest.Everything())
			cmd, pg := startOrphanArgs(t, append(tc.flags, dir, "/bin/sh", "-c", script))
			grandchild := readPid(t, pidFile)
			t.Cleanup(func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) })
			if pgOf(grandchild) == pg {
				t.Fatalf("the grandchild %d stayed in the server's group %d", grandchild, pg)
			}
			token, cgroup := runRecord(t, dir)
			if tc.cgroup && cgroup != "" && !strings.Contains(procCgroup(grandchild), filepath.Base(cgroup)) {
				t.Fatalf("grandchild in cgroup %q, want under %s", procCgroup(grandchild), cgroup)
			}
			if !tc.cgroup && cgroup != "" {
				t.Fatalf("-no-cgroup still made %s", cgroup)
			}
			t.Logf("tracked by marker %s, cgroup %q", token, cgroup)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			waitGone(t, []int{pg}, 10*time.Second)
			if !alive(grandchild) {
				t.Fatal("the grandchild died with Cairn; the sweep is not exercised")
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
			waitGone(t, []int{grandchild}, 5*time.Second)
			if left := marked(token); len(left) > 0 {
				t.Fatalf("processes of the killed Cairn left: %v", left)
			}
			if cgroup != "" {
				if _, err := os.Stat(cgroup); !os.IsNotExist(err) {
					t.Fatalf("cgroup %s left: %v", cgroup, err)
				}
			}
		})
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

func pgOf(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 3 {
		return 0
	}
	pg, _ := strconv.Atoi(f[2])
	return pg
}

func procCgroup(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	return string(b)
}

// runRecord reads the marker token and cgroup from the one pids file in dir.
func runRecord(t *testing.T, dir string) (token, cgroup string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "mcp", "run", "*.pids"))
	if len(files) != 1 {
		t.Fatalf("pid records: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "marker "); ok {
			token = v
		}
		if v, ok := strings.CutPrefix(l, "cgroup "); ok {
			cgroup = v
		}
	}
	if token == "" {
		t.Fatalf("no marker in %q", b)
	}
	return token, cgroup
}

// marked lists the live processes whose environment carries a marker of token.
func marked(token string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if strings.Contains(string(env), proc.MarkerEnv+"="+token+"-") {
			out = append(out, pid)
		}
	}
	return out
}

// TestStopEndsSetsidDescendant: turning a server off ends a grandchild that left its
// process group and session too, tracked by cgroup or by marker alone.
func TestStopEndsSetsidDescendant(t *testing.T) {
	mcptest.NeedNPM(t)
	for _, noCgroups := range []bool{false, true} {
		t.Run(fmt.Sprintf("noCgroups=%v", noCgroups), func(t *testing.T) {
			proc.NoCgroups = noCgroups
			t.Cleanup(func() { proc.NoCgroups = false })
			h := newHarness(t, cold)
			pidFile := filepath.Join(t.TempDir(), "grandchild")
			script := fmt.Sprintf(`setsid sh -c 'echo $$ > %q; exec sleep 300' & exec %q %q stdio`, pidFile, mcptest.Node(t), mcptest.Everything())
			v := h.save(sh("spawner", script))
			if _, err := h.m.RefreshTools(ctxT(t, 30*time.Second), v.ID); err != nil {
				t.Fatal(err)
			}
			grandchild := readPid(t, pidFile)
			t.Cleanup(func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) })
			if !alive(grandchild) {
				t.Fatal("no grandchild")
			}
			if _, err := h.m.SetEnabled(context.Background(), v.ID, false); err != nil {
				t.Fatal(err)
			}
			waitGone(t, []int{grandchild}, 5*time.Second)
		})
	}
}
