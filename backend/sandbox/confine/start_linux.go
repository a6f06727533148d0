//go:build linux

package confine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// start lays out the run for its level and starts it.
func (s *Sandbox) start(ctx context.Context, lv Level, pol Policy, argv []string, stdin io.Reader, op string) (*Process, error) {
	l, err := s.layoutFor(lv, pol)
	if err != nil {
		return nil, err
	}
	var cg cgroups
	if lv != None {
		cg = newCgroups(pol.Limits.Processes)
	}
	cmd, err := s.command(lv, l, argv, op, cg.any())
	if err != nil {
		cg.remove()
		l.cleanup()
		return nil, err
	}
	p, err := launch(ctx, cmd, stdin, lv, cg)
	if err != nil {
		cg.remove()
		l.cleanup()
		return nil, err
	}
	p.cleanup = l.cleanup
	return p, nil
}

// layoutFor checks the policy's paths against what is never exposed and prepares the
// run's home and temporary folders.
func (s *Sandbox) layoutFor(lv Level, pol Policy) (layout, error) {
	hidden := s.hidden()
	l := layout{pol: pol, exe: s.exe}
	if err := checkExposed("workspace", pol.Workspace, hidden); err != nil {
		return l, err
	}
	var err error
	if l.readOnly, err = s.readOnlyPaths(pol, hidden); err != nil {
		return l, err
	}
	if l.protected, err = existingProtected(pol); err != nil {
		return l, err
	}
	if lv == Strong {
		l.home, l.tmp = strongHome(), "/tmp"
		return l, nil
	}
	if l.scratch, err = os.MkdirTemp("", "cairn-sbx-"); err != nil {
		return l, fmt.Errorf("make the sandbox's private folders: %w", err)
	}
	l.home, l.tmp = filepath.Join(l.scratch, "home"), filepath.Join(l.scratch, "tmp")
	for _, d := range []string{l.home, l.tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			l.cleanup()
			return l, err
		}
	}
	return l, nil
}

func (l layout) cleanup() {
	if l.scratch != "" {
		_ = os.RemoveAll(l.scratch)
	}
}

// command builds the exec.Cmd of the run and the spec its helper applies.
func (s *Sandbox) command(lv Level, l layout, argv []string, op string, gate bool) (*exec.Cmd, error) {
	env := baseEnv(l.pol, l.home, l.tmp)
	sp := spec{Argv: argv, Env: env, Dir: l.pol.Dir, Limits: l.pol.Limits, Gate: gate}
	switch lv {
	case Strong:
		bw := s.opts.Bwrap
		if bw == "" {
			bw = "bwrap"
		}
		path, err := exec.LookPath(bw)
		if err != nil {
			return nil, fmt.Errorf("bubblewrap: %w", err)
		}
		if op != "" {
			sp.Argv = opArgv(insideExe, op)
		}
		sp.ReadOnly = append(append(append([]string{}, systemDirs...), "/etc", "/proc", insideExe), l.readOnly...)
		sp.ReadWrite = []string{l.pol.Workspace, "/tmp", l.home, "/dev"}
		sp.UnixSockets = true
		args := append(bwrapArgs(l), "--setenv", specEnv, sp.encode(), "--", insideExe, execArg, "--")
		return exec.Command(path, append(args, sp.Argv...)...), nil
	case Reduced:
		if op != "" {
			sp.Argv = opArgv(s.exe, op)
		}
		sp.ReadOnly = append(append(append([]string{}, systemDirs...), "/proc", s.exe), l.readOnly...)
		sp.ReadOnly = append(sp.ReadOnly, allowedBeneath("/etc", hiddenEtc)...)
		sp.ReadWrite = []string{l.pol.Workspace, l.scratch, "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}
		sp.NeedLandlock = true
		cmd := exec.Command(s.exe, append([]string{execArg, "--"}, sp.Argv...)...)
		cmd.Env = []string{specEnv + "=" + sp.encode()}
		return cmd, nil
	}
	if op != "" {
		argv = opArgv(s.exe, op)
		env = append(env, unconfinedEnv+"=1")
	}
	path, err := lookPath(argv[0], env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", argv[0], err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env, cmd.Dir = env, l.pol.Dir
	return cmd, nil
}

// launch starts cmd in a session of its own, with pipes for its output, and (with a
// gate) puts the helper in the run's cgroups before letting it go on.
func launch(ctx context.Context, cmd *exec.Cmd, stdin io.Reader, lv Level, cg cgroups) (*Process, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, outW, errW
	cmd.WaitDelay = time.Second
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	var g *gatePipes
	if cg.any() {
		if g, err = newGate(cmd); err != nil {
			outR.Close()
			outW.Close()
			errR.Close()
			errW.Close()
			return nil, err
		}
	}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	g.closeChildEnds()
	if err != nil {
		outR.Close()
		errR.Close()
		g.close()
		return nil, fmt.Errorf("start the sandbox: %w", err)
	}
	p := newProcess(cmd, lv, cg, outR, errR)
	if g != nil {
		if err := g.open(ctx, cmd.Process.Pid, lv, cg); err != nil {
			p.Kill()
			_, _ = p.Wait()
			return nil, err
		}
	}
	go p.watch(ctx)
	return p, nil
}

// gatePipes hold the helper before it applies the policy: it says it is ready (so its
// pid can be found under bwrap's), Cairn moves it into the cgroups and opens the gate.
type gatePipes struct {
	gateR, gateW   *os.File
	readyR, readyW *os.File
}

func newGate(cmd *exec.Cmd) (*gatePipes, error) {
	var g gatePipes
	var err error
	if g.gateR, g.gateW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if g.readyR, g.readyW, err = os.Pipe(); err != nil {
		g.gateR.Close()
		g.gateW.Close()
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{g.gateR, g.readyW} // fds 3 and 4
	return &g, nil
}

func (g *gatePipes) closeChildEnds() {
	if g != nil {
		g.gateR.Close()
		g.readyW.Close()
	}
}

func (g *gatePipes) close() {
	if g != nil {
		g.gateW.Close()
		g.readyR.Close()
	}
}

// open waits for the helper to be ready, joins it to the cgroups and lets it go on.
func (g *gatePipes) open(ctx context.Context, pid int, lv Level, cg cgroups) error {
	defer g.close()
	ready := make(chan error, 1)
	go func() {
		var b [1]byte
		_, err := io.ReadFull(g.readyR, b[:])
		ready <- err
	}()
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	select {
	case err := <-ready:
		if err != nil {
			return errors.New("the sandbox helper did not start (see its error output)")
		}
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errors.New("the sandbox helper did not start in time")
	}
	pids := []int{pid}
	if lv == Strong {
		pids = descendants(pid) // bwrap's: the helper is the deepest, the others wait
	}
	for _, p := range pids {
		if err := cg.join(p); err != nil {
			return fmt.Errorf("put the sandbox in its cgroup: %w", err)
		}
	}
	_, err := g.gateW.Write([]byte{1})
	return err
}
