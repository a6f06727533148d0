//go:build linux

package proc

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// makeCgroupBase creates name under the cgroup v2 group Cairn runs in and returns its
// path, or "" when there is no cgroup v2 or Cairn may not write there (a desktop
// session's app scope usually is not delegated; a container's root may be).
func makeCgroupBase(name string) string {
	mount := cgroup2Mount()
	if mount == "" {
		return ""
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	var self string
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "0::"); ok {
			self = rest
		}
	}
	if self == "" {
		return ""
	}
	dir := filepath.Join(mount, filepath.FromSlash(self), name)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return ""
	}
	return dir
}

// cgroup2Mount is where the cgroup v2 hierarchy is mounted ("" when it is not).
func cgroup2Mount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		if f := strings.Fields(pre); len(f) >= 5 && f[3] == "/" {
			return f[4]
		}
	}
	return ""
}

// prepareCgroup creates the process's cgroup and has the child start in it
// (clone3 CLONE_INTO_CGROUP). done closes the directory handle once the child runs.
func prepareCgroup(attr *syscall.SysProcAttr, dir string) (done func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Open(dir)
	if err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	attr.UseCgroupFD = true
	attr.CgroupFD = int(f.Fd())
	return func() { _ = f.Close() }, nil
}

// killCgroup SIGKILLs every process of a cgroup and its children (cgroup.kill, or each
// listed pid on kernels before 5.14) and removes the directories once they are empty.
func killCgroup(dir string) int {
	pids := cgroupPids(dir)
	if err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0); err != nil {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	// A cgroup can be removed only once its processes are gone (reaped or not).
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if removeCgroup(dir) || time.Now().After(deadline) {
			break
		}
	}
	return len(pids)
}

// cgroupPids lists the processes of a cgroup tree.
func cgroupPids(dir string) []int {
	var out []int
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 1 && pid != os.Getpid() {
				out = append(out, pid)
			}
		}
		return nil
	})
	return out
}

// removeCgroup removes a cgroup tree deepest first; it reports whether dir is gone.
func removeCgroup(dir string) bool {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	for _, e := range ents {
		if e.IsDir() {
			removeCgroup(filepath.Join(dir, e.Name()))
		}
	}
	err = syscall.Rmdir(dir)
	return err == nil || errors.Is(err, syscall.ENOENT)
}

// killMarked SIGKILLs every process (of those this user may read) whose environment has
// MarkerEnv with a value match accepts. It returns how many it signalled.
func killMarked(match func(value string) bool) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	key := []byte(MarkerEnv + "=")
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 1 || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue // gone, or another user's
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, key); ok && match(string(v)) {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					n++
				}
				break
			}
		}
	}
	return n
}
