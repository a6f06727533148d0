//go:build linux

package confine

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroups are the control groups one run's processes are in: they bound the number of
// processes of the whole tree (pids.max, which holds even for root, whom RLIMIT_NPROC
// does not stop) and find every process to kill, wherever it moved in the process tree.
// Either may be empty: the system did not let Cairn make it.
type cgroups struct {
	pids string // a cgroup with the pids controller (v1, or v2 where it is enabled)
	v2   string // a cgroup v2 group (cgroup.kill), when it is not pids already
}

func (c cgroups) any() bool { return c.pids != "" || c.v2 != "" }

// newCgroups makes the run's cgroups under the ones Cairn runs in.
func newCgroups(maxProcs uint64) cgroups {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "cairn-sbx-" + hex.EncodeToString(b[:])
	var c cgroups
	if base := ownCgroup("pids"); base != "" {
		dir := filepath.Join("/sys/fs/cgroup/pids", base, name)
		if os.Mkdir(dir, 0o755) == nil {
			if os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatUint(maxProcs, 10)), 0o644) == nil {
				c.pids = dir
			} else {
				_ = os.Remove(dir)
			}
		}
	}
	if mount, base := cgroup2(); mount != "" {
		dir := filepath.Join(mount, base, name)
		if os.Mkdir(dir, 0o755) == nil {
			if c.pids == "" && os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatUint(maxProcs, 10)), 0o644) == nil {
				c.pids = dir
			} else {
				c.v2 = dir
			}
		}
	}
	return c
}

// ownCgroup is this process's path in the v1 hierarchy of controller ("" without one).
func ownCgroup(controller string) string {
	if _, err := os.Stat("/sys/fs/cgroup/" + controller + "/cgroup.procs"); err != nil {
		return ""
	}
	return selfCgroupLine(func(ctrls string) bool {
		return ctrls != "" && strings.Contains(","+ctrls+",", ","+controller+",")
	})
}

// cgroup2 is the v2 mount point and this process's group in it ("" when there is none).
func cgroup2() (mount, base string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if fs := strings.Fields(pre); ok && strings.HasPrefix(post, "cgroup2 ") && len(fs) >= 5 && fs[3] == "/" {
			return fs[4], selfCgroupLine(func(ctrls string) bool { return ctrls == "" })
		}
	}
	return "", ""
}

// selfCgroupLine finds the path in /proc/self/cgroup of the line whose controllers
// match ("" for the v2 line "0::/path").
func selfCgroupLine(match func(ctrls string) bool) string {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) == 3 && match(parts[1]) {
			return parts[2]
		}
	}
	return ""
}

// join puts pid in the run's cgroups; its children are born there.
func (c cgroups) join(pid int) error {
	for _, dir := range []string{c.pids, c.v2} {
		if dir == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// kill ends every process in the run's cgroups (v2: at once; v1: until none is left).
func (c cgroups) kill() {
	if c.v2 != "" {
		_ = os.WriteFile(filepath.Join(c.v2, "cgroup.kill"), []byte("1"), 0o644)
	}
	if c.pids == "" {
		return
	}
	if os.WriteFile(filepath.Join(c.pids, "cgroup.kill"), []byte("1"), 0o644) == nil {
		return
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		pids := c.members()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (c cgroups) members() []int {
	b, err := os.ReadFile(filepath.Join(c.pids, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// remove deletes the (empty) cgroups.
func (c cgroups) remove() {
	for _, dir := range []string{c.pids, c.v2} {
		if dir == "" {
			continue
		}
		for i := 0; i < 50 && os.Remove(dir) != nil; i++ {
			time.Sleep(2 * time.Millisecond) // the last members are being reaped
		}
	}
}

// descendants lists the processes below pid, from one scan of /proc.
func descendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentPid(n); pp > 0 {
			children[pp] = append(children[pp], n)
		}
	}
	var out []int
	for queue := []int{pid}; len(queue) > 0; {
		p := queue[0]
		queue = queue[1:]
		out = append(out, children[p]...)
		queue = append(queue, children[p]...)
	}
	return out
}

func parentPid(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}
