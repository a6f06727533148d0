//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// helperMain applies the spec to this process (one OS thread, which then execs, so the
// restrictions hold for the command and everything it starts) and runs the command.
func helperMain(args []string) int {
	sp, err := readSpec()
	if err != nil {
		return helperFail("read the policy", err)
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return helperFail("start", errors.New("no command"))
	}
	if sp.Gate {
		cred := unix.UnixCredentials(&unix.Ucred{Pid: int32(os.Getpid()), Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid())})
		_ = unix.Sendmsg(gateFD+1, []byte{1}, cred, nil, 0)
		_ = unix.Close(gateFD + 1)
		gate := os.NewFile(gateFD, "gate")
		var b [1]byte
		_, _ = gate.Read(b[:])
		_ = gate.Close()
		if b[0] != 1 {
			return helperFail("start", errors.New("the sandbox was not set up"))
		}
	}
	runtime.LockOSThread() // never unlocked: the restrictions are this thread's
	if _, err := apply(sp); err != nil {
		return helperFail("apply the sandbox", err)
	}
	if sp.Forward {
		if err := startForwarder(); err != nil {
			return helperFail("start the network forwarder", err)
		}
	}
	path, err := lookPath(args[0], sp.Env)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cairn sandbox: %s: command not found\n", args[0])
		return 127
	}
	x, err := prepareExec(path, args, sp.Env)
	if err != nil {
		return helperFail("start", err)
	}
	// Last, so the helper's own runtime is not held to the command's address space.
	if err := prlimits(0, sp.Limits); err != nil {
		return helperFail("set the limits", err)
	}
	err = x.exec()
	fmt.Fprintf(os.Stderr, "cairn sandbox: %s: %v\n", args[0], err)
	return 126
}

// preparedExec is an execve whose arguments are already C strings. Once the address
// space limit is set, the runtime may find no room for one more span (a race-built or
// long-running helper already maps more than the limit), so nothing may allocate
// between the limits and the exec — syscall.Exec converts its arguments itself.
type preparedExec struct {
	path       *byte
	argv, envv []*byte
}

func prepareExec(path string, args, env []string) (preparedExec, error) {
	var x preparedExec
	var err error
	if x.path, err = syscall.BytePtrFromString(path); err != nil {
		return x, err
	}
	if x.argv, err = syscall.SlicePtrFromStrings(args); err != nil {
		return x, err
	}
	x.envv, err = syscall.SlicePtrFromStrings(env)
	return x, err
}

// exec replaces the process and returns only on failure; it allocates nothing.
func (x preparedExec) exec() error {
	_, _, errno := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(x.path)),
		uintptr(unsafe.Pointer(&x.argv[0])), uintptr(unsafe.Pointer(&x.envv[0])))
	return errno
}

func helperFail(what string, err error) int {
	fmt.Fprintf(os.Stderr, "cairn sandbox: %s: %v\n", what, err)
	return 125
}

// applied says what apply managed.
type applied struct {
	landlockABI int   // 0: not applied
	landlockErr error // why not
}

// apply sets, on the calling (locked) thread: the working directory, no_new_privs, no
// capabilities, Landlock (best effort unless the spec needs it) and seccomp (always).
// The rlimits come just before the exec.
func apply(sp spec) (applied, error) {
	var a applied
	if sp.Dir != "" {
		if err := os.Chdir(sp.Dir); err != nil {
			return a, err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return a, fmt.Errorf("no_new_privs: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return a, fmt.Errorf("drop capabilities: %w", err)
	}
	a.landlockABI, a.landlockErr = landlockSelf(sp)
	if a.landlockErr != nil && sp.NeedLandlock {
		return a, fmt.Errorf("landlock: %w", a.landlockErr)
	}
	if err := loadSeccomp(sp.UnixSockets, sp.Forward); err != nil {
		return a, fmt.Errorf("seccomp: %w", err)
	}
	return a, nil
}

// lookPath finds the command in the PATH of the command's own environment.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// checkConfined reports an error unless this process runs under a seccomp filter with
// no_new_privs set (what the helper applies), or Cairn ran it unconfined on purpose.
func checkConfined() error {
	if os.Getenv(unconfinedEnv) == "1" {
		return nil
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err
	}
	s := string(b)
	if !strings.Contains(s, "\nSeccomp:\t2") || !strings.Contains(s, "\nNoNewPrivs:\t1") {
		return errors.New("no seccomp filter in place")
	}
	return nil
}

// prlimits sets the limits on process pid (0: this one), never raising one: the helper
// on itself before it execs, Cairn on bwrap's sandbox process of a direct run. It calls
// prlimit64 itself because unix.Prlimit's arguments escape to the heap, and once the
// address space limit is set the helper may not allocate.
func prlimits(pid int, l Limits) error {
	l = l.withDefaults()
	for _, r := range [...]struct {
		res int
		v   uint64
	}{
		{unix.RLIMIT_CPU, l.CPUSeconds}, {unix.RLIMIT_AS, l.MemoryBytes}, {unix.RLIMIT_FSIZE, l.FileBytes},
		{unix.RLIMIT_NPROC, l.Processes}, {unix.RLIMIT_NOFILE, l.OpenFiles}, {unix.RLIMIT_CORE, 0},
	} {
		lim := unix.Rlimit{Cur: r.v, Max: r.v}
		var cur unix.Rlimit
		if prlimit(pid, r.res, nil, &cur) == 0 && cur.Max < r.v {
			lim = unix.Rlimit{Cur: cur.Max, Max: cur.Max}
		}
		if e := prlimit(pid, r.res, &lim, nil); e != 0 {
			return e
		}
	}
	return nil
}

// prlimit is prlimit64(2); its arguments stay on the caller's stack.
func prlimit(pid, res int, set, old *unix.Rlimit) unix.Errno {
	_, _, e := unix.RawSyscall6(unix.SYS_PRLIMIT64, uintptr(pid), uintptr(res), uintptr(unsafe.Pointer(set)), uintptr(unsafe.Pointer(old)), 0, 0)
	return e
}
