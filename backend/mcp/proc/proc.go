// Package proc runs MCP stdio servers as child processes that Cairn owns completely: each
// in its own process group (a server started through npx or a shell wrapper is several
// processes, and closing must end all of them), stopped gracefully then by force, never
// left behind when Cairn exits or is killed (Linux: the kernel kills the direct child when
// Cairn dies, and the next start sweeps the groups a dead Cairn left). It also resolves the
// login shell's environment and looks commands up in it, because a GUI app does not
// inherit the PATH where npx, uvx and node live.
package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"
)

// Spec describes one child process.
type Spec struct {
	// Path is the resolved executable (see LookPath); Args are its arguments (without
	// argv[0]).
	Path string
	Args []string
	// Env is the complete environment, KEY=VALUE.
	Env []string
	// Dir is the working directory; empty means Cairn's.
	Dir string
	// Stderr receives the child's standard error; nil discards it.
	Stderr io.Writer
	// Registry, when set, records the process group so a later Cairn can sweep it if
	// this one dies without closing it, and tracks the process's descendants (MarkerEnv,
	// a cgroup where the system allows one) so none outlives Stop or that sweep.
	Registry *Registry
	// Launch, when set, starts the process instead of a plain exec (the sandbox); the
	// marker tracks its descendants then, as the launcher's own cgroups hold its tree.
	Launch Launcher
}

// Process is a running child in its own process group.
type Process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	pgid   int
	reg    *Registry
	job    *job    // Windows: the job object the child's tree runs in
	track  tracked // how its descendants are found (the zero value: not tracked)
	child  Child   // set when a Launcher started it (cmd is nil then)
	code   int     // a launched child's exit code, valid after done

	done    chan struct{} // closed when the leader has exited and been reaped
	waitErr error

	stopOnce sync.Once
	stopErr  error
}

// Start starts the child with stdin and stdout as pipes.
func Start(spec Spec) (*Process, error) {
	var t tracked
	if spec.Registry != nil {
		t = spec.Registry.next()
	}
	if spec.Launch != nil {
		t.cgroup = ""
		p, err := startLaunched(spec, t)
		if err == nil && p.reg != nil {
			p.reg.add(p.pgid)
		}
		return p, err
	}
	cmd, stdin, stdout, err := startCmd(spec, t)
	if err != nil && t.cgroup != "" {
		// The system refused the cgroup (no clone3, no permission on the way): the marker
		// alone tracks this one.
		_ = os.Remove(t.cgroup)
		t.cgroup = ""
		cmd, stdin, stdout, err = startCmd(spec, t)
	}
	if err != nil {
		return nil, err
	}
	j, err := newJob(cmd.Process.Pid)
	if err != nil {
		_ = cmd.Process.Kill() // a child outside a job could outlive Cairn
		_ = cmd.Wait()
		return nil, err
	}
	p := &Process{cmd: cmd, stdin: stdin, stdout: stdout, pgid: cmd.Process.Pid, reg: spec.Registry, job: j, track: t, done: make(chan struct{})}
	if p.reg != nil {
		p.reg.add(p.pgid)
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// startCmd starts one exec.Cmd (which cannot be started twice) for spec, tracked by t.
func startCmd(spec Spec, t tracked) (*exec.Cmd, io.WriteCloser, io.ReadCloser, error) {
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Env = spec.Env
	if t.marker != "" {
		cmd.Env = append(slices.Clip(spec.Env), MarkerEnv+"="+t.marker)
	}
	cmd.Dir = spec.Dir
	cmd.Stderr = spec.Stderr
	cmd.SysProcAttr = sysProcAttr()
	// A grandchild that keeps stderr open must not hold Wait forever.
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if t.cgroup != "" {
		done, err := prepareCgroup(cmd.SysProcAttr, t.cgroup)
		if err != nil {
			return nil, nil, nil, err
		}
		defer done()
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	return cmd, stdin, stdout, nil
}

// Pid is the child's process id (also its process group id).
func (p *Process) Pid() int { return p.pgid }

// Stdin is the pipe to the child's standard input.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is the pipe from the child's standard output.
func (p *Process) Stdout() io.ReadCloser { return p.stdout }

// Done is closed once the direct child has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitErr is how the direct child ended (nil for status 0); valid after Done.
func (p *Process) ExitErr() error {
	<-p.done
	return p.waitErr
}

// ExitCode is the child's exit status, or -1 when it was killed by a signal or has not
// exited.
func (p *Process) ExitCode() int {
	select {
	case <-p.done:
	default:
		return -1
	}
	if p.child != nil {
		return p.code
	}
	if p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// Describe says how the child ended, for logs and error messages.
func (p *Process) Describe() string {
	select {
	case <-p.done:
	default:
		return "still running"
	}
	if p.child != nil {
		if p.waitErr != nil {
			return p.waitErr.Error()
		}
		return describeCode(p.code)
	}
	st := p.cmd.ProcessState
	if st == nil {
		if p.waitErr != nil {
			return p.waitErr.Error()
		}
		return "exited"
	}
	return describeState(st)
}

// Stop ends the child and everything in its process group: it closes stdin (the MCP
// stdio shutdown), waits up to grace for the child to exit, then sends SIGTERM to the
// group, waits up to grace again, and finally SIGKILLs the group. Members of the group
// still alive after the leader exited (a server npx started) are killed too. Stop is
// idempotent and safe to call concurrently.
func (p *Process) Stop(grace time.Duration) error {
	p.stopOnce.Do(func() { p.stopErr = p.stop(grace) })
	return p.stopErr
}

func (p *Process) stop(grace time.Duration) error {
	defer func() {
		if p.reg != nil {
			p.reg.remove(p.pgid)
		}
		p.job.close()
	}()
	_ = p.stdin.Close()
	wait := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-p.done:
			return true
		case <-t.C:
			return false
		}
	}
	exited := wait(grace)
	if !exited {
		_ = signalGroup(p.pgid, sigTerm)
		exited = wait(grace)
	}
	// Whether or not the leader went on its own, make sure nothing of the group survives.
	p.KillGroup()
	if !exited && !wait(5*time.Second) {
		return fmt.Errorf("process %d did not exit after SIGKILL", p.pgid)
	}
	// SIGKILL is delivered when a member next runs: on a busy machine the others may
	// take a moment to die after the leader. Stop returns once they are gone (or a
	// second has passed), so "stopped" means no process of the group is left.
	for deadline := time.Now().Add(time.Second); GroupAlive(p.pgid) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond) // the members are not our children: nothing to wait on
	}
	return nil
}

// KillGroup sends SIGKILL to the whole process group at once (after a crash of the
// leader, to reap what it started), and to every descendant that left the group (its
// cgroup, its marker).
func (p *Process) KillGroup() {
	_ = signalGroup(p.pgid, sigKill)
	if p.child != nil {
		p.child.Kill()
	}
	p.job.kill()
	if p.track != (tracked{}) {
		killTracked(p.track)
	}
}

// ErrNotFound is wrapped by LookPath's error when no executable was found.
var ErrNotFound = errors.New("executable file not found")

// NotFoundError says which command was not found and where Cairn looked.
type NotFoundError struct {
	Command  string
	Searched []string // directories (or the one path) tried, in order
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s: %s (searched %v)", e.Command, ErrNotFound, e.Searched)
}

// Unwrap lets errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() {
		return false
	}
	return executableMode(st)
}
