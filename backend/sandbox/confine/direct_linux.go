//go:build linux

package confine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/bpf"
)

// The fds a direct run gives bwrap (see hold).
const (
	holdInfoFD    = 3 // --info-fd: bwrap writes its sandbox process's pid here
	holdBlockFD   = 4 // --block-fd: the sandbox process waits for a byte here
	holdSeccompFD = 5 // --seccomp: the filter, as a BPF program
)

// direct runs a plain command under bubblewrap without the helper, whose Go runtime
// start (6 to 14 ms) was most of the strong level's overhead. What the helper applied
// holds all the same: bwrap loads the same seccomp filter (--seccomp) into its sandbox
// process and the command, sets no_new_privs and drops every capability; Cairn sets the
// limits (prlimit) and the cgroups on bwrap's sandbox process while it waits on
// --block-fd, before it forks or executes anything (see hold); and what Landlock kept
// read-only beyond the mounts is mounted read-only (directMounts). bwrap's pid 1 gets
// the same filter, limits and cgroups as the command, so Landlock's ptrace scope, which
// kept the command off it, has nothing left to guard. What Landlock alone still denied:
// ioctls on the devices of the sandbox's private /dev (null, zero, random, its own
// devpts), allowed at the reduced level too; seccomp still denies TIOCSTI and TIOCLINUX.
func direct(bwrap string, l layout, sp spec) (*exec.Cmd, *hold, error) {
	prog, err := directFilter()
	if err != nil {
		return nil, nil, fmt.Errorf("seccomp: %w", err)
	}
	l.exe = "" // no helper inside
	args := append(bwrapArgs(l), directMounts...)
	args = append(args, "--info-fd", strconv.Itoa(holdInfoFD), "--block-fd", strconv.Itoa(holdBlockFD),
		"--seccomp", strconv.Itoa(holdSeccompFD))
	for _, kv := range sp.Env {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	cmd := exec.Command(bwrap, append(append(args, "--"), sp.Argv...)...)
	cmd.Env = []string{} // as with the helper: bwrap's pid 1 gets nothing of Cairn's
	h, err := newHold(cmd, prog, sp.Limits)
	if err != nil {
		return nil, nil, err
	}
	return cmd, h, nil
}

// directMounts keep what the helper's Landlock rules denied inside the mounts and a
// direct run could otherwise do: write /proc's global files (kernel settings, which a
// command run by a root Cairn, root in its user namespace, could change: core_pattern
// runs a program as the host's root), and list or write the root folder (mode 0111 for
// the first: only passed through, as Landlock allowed). The files of /proc that concern
// only the sandbox's own processes stay as they are: those are all as confined as the
// command.
var directMounts = []string{
	"--ro-bind", "/proc/sys", "/proc/sys",
	"--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
	"--ro-bind-try", "/proc/fs", "/proc/fs",
	"--chmod", "0111", "/",
	"--remount-ro", "/",
}

// directFilter is the helper's seccomp filter at the strong level (Unix sockets, no IP
// ones) as the raw BPF program bwrap loads.
var directFilter = sync.OnceValues(func() ([]byte, error) {
	pol := filterPolicy(true, false)
	insts, err := pol.Assemble()
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 8*len(raw))
	for _, in := range raw { // struct sock_filter: code, jt, jf, k
		out = binary.NativeEndian.AppendUint16(out, in.Op)
		out = append(out, in.Jt, in.Jf)
		out = binary.NativeEndian.AppendUint32(out, in.K)
	}
	return out, nil
})

// hold keeps bwrap's sandbox process of a direct run waiting (--block-fd) after it set
// up the mounts, before it forks the command or executes anything, while Cairn moves it
// into the run's cgroups and sets its limits, which everything it then starts inherits.
// Its pid, as Cairn sees it, comes on --info-fd.
type hold struct {
	infoR, infoW   *os.File
	blockR, blockW *os.File
	seccompR       *os.File
	limits         Limits
}

func newHold(cmd *exec.Cmd, prog []byte, limits Limits) (*hold, error) {
	h := &hold{limits: limits}
	var err error
	if h.infoR, h.infoW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if h.blockR, h.blockW, err = os.Pipe(); err != nil {
		h.closeChildEnds()
		h.close()
		return nil, err
	}
	// The program (under a kilobyte) fits the pipe's buffer: written and closed now,
	// bwrap reads it to the end.
	r, w, err := os.Pipe()
	if err == nil {
		h.seccompR = r
		_, err = w.Write(prog)
		w.Close()
	}
	if err != nil {
		h.closeChildEnds()
		h.close()
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{h.infoW, h.blockR, h.seccompR} // holdInfoFD, holdBlockFD, holdSeccompFD
	return h, nil
}

func (h *hold) closeChildEnds() {
	if h != nil {
		for _, f := range []*os.File{h.infoW, h.blockR, h.seccompR} {
			if f != nil {
				f.Close()
			}
		}
	}
}

func (h *hold) close() {
	if h != nil {
		for _, f := range []*os.File{h.infoR, h.blockW} {
			if f != nil {
				f.Close()
			}
		}
	}
}

// release prepares the held process (see prepare) and lets it go on.
func (h *hold) release(ctx context.Context, cg cgroups, started int) error {
	defer h.close()
	done := make(chan error, 1)
	go func() { done <- h.prepare(cg, started) }()
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errors.New("the sandbox did not start in time")
	}
	_, err := h.blockW.Write([]byte{1})
	return err
}

// prepare moves bwrap (started) into the cgroups at once, which takes the kernel's
// grace period while bwrap sets up the mounts (see gatePipes), then its sandbox process
// (quick after the first), and sets the sandbox process's limits.
func (h *hold) prepare(cg cgroups, started int) error {
	early := make(chan error, 1)
	go func() { early <- cg.join(started) }()
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	err := json.NewDecoder(h.infoR).Decode(&info)
	<-early // only a head start for the kernel: the sandbox process's move is what counts
	if err != nil || info.ChildPid <= 0 {
		return errors.New("the sandbox did not start (see its error output)")
	}
	if err := cg.join(info.ChildPid); err != nil {
		return fmt.Errorf("put the sandbox in its cgroup: %w", err)
	}
	if err := prlimits(info.ChildPid, h.limits); err != nil {
		return fmt.Errorf("set the limits: %w", err)
	}
	return nil
}
