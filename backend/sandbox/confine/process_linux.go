//go:build linux

package confine

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// Process is a running sandboxed command.
type Process struct {
	// Stdout and Stderr stream the command's output; they end when every process of the
	// tree has closed them (at the latest when the tree is killed after the command).
	Stdout *os.File
	Stderr *os.File
	// Level is the level the command runs under.
	Level Level

	cmd     *exec.Cmd
	cg      cgroups
	cleanup func()
	proxy   *proxy
	reached []string

	done     chan struct{}
	waitErr  error
	killOnce sync.Once
	endOnce  sync.Once
}

func newProcess(cmd *exec.Cmd, lv Level, cg cgroups, out, errOut *os.File) *Process {
	p := &Process{Stdout: out, Stderr: errOut, Level: lv, cmd: cmd, cg: cg, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		// Nothing outlives the command: background children, setsid'd ones included.
		p.killTree(false)
		close(p.done)
	}()
	return p
}

// Pid is the process Cairn started (bwrap, or the helper that became the command): the
// leader of the run's session.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// watch kills the tree when ctx ends first.
func (p *Process) watch(ctx context.Context) {
	select {
	case <-ctx.Done():
		p.Kill()
	case <-p.done:
	}
}

// Kill ends the whole process tree at once: its session, its cgroups and (strong) its
// pid namespace, whose processes the kernel kills with bwrap's.
func (p *Process) Kill() {
	p.killOnce.Do(func() { p.killTree(true) })
}

// killTree kills the session, the cgroups and, with scan, every descendant found in
// /proc (before the leader exits they still hang below it).
func (p *Process) killTree(scan bool) {
	pid := p.cmd.Process.Pid
	var rest []int
	if scan {
		rest = descendants(pid)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for _, d := range rest {
		_ = syscall.Kill(d, syscall.SIGKILL)
	}
	p.cg.kill()
}

// Wait waits for the command and returns its exit code (128+signal when a signal ended
// it); the tree is gone and the run's folders removed when it returns.
func (p *Process) Wait() (int, error) {
	<-p.done
	p.endOnce.Do(func() {
		if p.proxy != nil {
			p.reached = p.proxy.close()
		}
		p.cg.remove()
		if p.cleanup != nil {
			p.cleanup()
		}
	})
	st := p.cmd.ProcessState
	if st == nil {
		return -1, p.waitErr
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	var ee *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &ee) && !errors.Is(p.waitErr, exec.ErrWaitDelay) {
		return st.ExitCode(), p.waitErr
	}
	return st.ExitCode(), nil
}

// Reached lists the hosts (host:port) the run's network proxy connected to, once Wait
// has returned.
func (p *Process) Reached() []string {
	<-p.done
	return append([]string(nil), p.reached...)
}
