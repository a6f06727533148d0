//go:build !linux

package confine

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
)

// probeResult off Linux: macOS's sandbox-exec (the reduced level) or nothing.
type probeResult struct {
	reasons  []string
	seatbelt bool
}

func (pr probeResult) best() Level {
	if pr.seatbelt {
		return Reduced
	}
	return None
}

func (pr probeResult) reducedOK() bool { return pr.seatbelt }

func runProbe(ctx context.Context, s *Sandbox) probeResult {
	if runtime.GOOS == "windows" {
		return probeResult{reasons: []string{"Windows has no sandbox Cairn can use: tools refuse unless running unsandboxed is allowed"}}
	}
	if err := seatbeltProbe(ctx); err != nil {
		return probeResult{reasons: []string{"no sandbox works on " + runtime.GOOS + ": " + err.Error()}}
	}
	return probeResult{seatbelt: true, reasons: []string{"macOS sandbox-exec: no pid namespace or limits on the process tree"}}
}

func describe(pr probeResult, lv Level) Status {
	off := Aspect{false, "no sandbox: the command runs with Cairn's own rights"}
	if lv == Reduced {
		return Status{Level: Reduced, Reasons: pr.reasons,
			Reads:     Aspect{true, "sandbox-exec profile: system folders, the workspace and allowed folders; the data directory and keys denied"},
			Writes:    Aspect{true, "only the workspace and private folders; protected paths read-only"},
			Network:   Aspect{true, "denied by the profile, DNS included"},
			Processes: Aspect{false, "killed through the process group only"},
			Limits:    Aspect{false, "no limits on the process tree"}}
	}
	return Status{Level: None, Reads: off, Writes: off, Network: off, Processes: off, Limits: off, Reasons: pr.reasons}
}

func helperMain(args []string) int { return 125 }

func closeOnExec() {}

func probeMain(w io.Writer) int { return 125 }

func checkConfined() error {
	if os.Getenv(unconfinedEnv) == "1" {
		return nil
	}
	return errors.New("no sandbox on " + runtime.GOOS)
}

// Process is a running command (unconfined here: only with the user's consent).
type Process struct {
	Stdout *os.File
	Stderr *os.File
	Level  Level

	cmd  *exec.Cmd
	done chan struct{}
	err  error
	once sync.Once
}

// start runs the command unconfined: Start refuses before unless the user allowed it.
func (s *Sandbox) start(ctx context.Context, lv Level, pol Policy, argv []string, stdin io.Reader, op string) (p *Process, err error) {
	if len(pol.Network) > 0 {
		return nil, errors.New("allowing network domains needs a sandbox; the network stays off")
	}
	env := baseEnv(pol, os.TempDir(), os.TempDir())
	if op != "" {
		argv = opArgv(s.exe, op)
		env = append(env, unconfinedEnv+"=1") // the profile is the wall: the op checks no filter
	}
	var scratch string
	if lv == Reduced {
		l, err := s.seatbeltLayout(pol)
		if err != nil {
			return nil, err
		}
		scratch = l.scratch
		env = baseEnv(pol, l.home, l.tmp)
		if op != "" {
			env = append(env, unconfinedEnv+"=1")
		}
		argv = seatbeltWrap(seatbeltProfile(l, s.hidden()), argv)
	}
	defer func() {
		if scratch != "" && p == nil {
			_ = os.RemoveAll(scratch)
		}
	}()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdin = env, pol.Dir, stdin
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		return nil, err
	}
	p = &Process{Stdout: outR, Stderr: errR, Level: None, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		if scratch != "" {
			_ = os.RemoveAll(scratch)
		}
		close(p.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			p.Kill()
		case <-p.done:
		}
	}()
	return p, nil
}

// Pid is the started process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Kill ends the command.
func (p *Process) Kill() { p.once.Do(func() { _ = p.cmd.Process.Kill() }) }

// Wait waits for the command and returns its exit code.
func (p *Process) Wait() (int, error) {
	<-p.done
	if p.cmd.ProcessState == nil {
		return -1, p.err
	}
	return p.cmd.ProcessState.ExitCode(), nil
}

func forwardMain() int { return 125 }

// Reached is empty: no proxy runs without a sandbox.
func (p *Process) Reached() []string { return nil }

// layout is one run's paths (sandbox-exec's profile is made from it).
type layout struct {
	pol                            Policy
	exe, home, tmp, scratch        string
	readOnly, readWrite, protected []string
}

// seatbeltLayout checks the policy's paths and makes the run's private folders.
func (s *Sandbox) seatbeltLayout(pol Policy) (layout, error) {
	hidden := s.hidden()
	l := layout{pol: pol, exe: s.exe}
	if err := checkExposed("workspace", pol.Workspace, hidden); err != nil {
		return l, err
	}
	var err error
	if l.readOnly, err = s.readOnlyPaths(pol, hidden); err != nil {
		return l, err
	}
	if l.readWrite, err = readWritePaths(pol, hidden); err != nil {
		return l, err
	}
	if l.protected, err = existingProtected(pol); err != nil {
		return l, err
	}
	if l.scratch, err = os.MkdirTemp("", "cairn-sbx-"); err != nil {
		return l, err
	}
	l.scratch = evalOr(l.scratch)
	l.home, l.tmp = l.scratch+"/home", l.scratch+"/tmp"
	for _, d := range []string{l.home, l.tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			_ = os.RemoveAll(l.scratch)
			return l, err
		}
	}
	return l, nil
}
