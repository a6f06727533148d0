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

// probeResult on systems without a sandbox here: nothing confines.
type probeResult struct{ reasons []string }

func (pr probeResult) best() Level     { return None }
func (pr probeResult) reducedOK() bool { return false }

func runProbe(ctx context.Context, s *Sandbox) probeResult {
	if runtime.GOOS == "windows" {
		return probeResult{reasons: []string{"Windows has no sandbox Cairn can use: tools refuse unless running unsandboxed is allowed"}}
	}
	return probeResult{reasons: []string{"no sandbox is implemented for " + runtime.GOOS + " yet"}}
}

func describe(pr probeResult, lv Level) Status {
	off := Aspect{false, "no sandbox: the command runs with Cairn's own rights"}
	return Status{Level: None, Reads: off, Writes: off, Network: off, Processes: off, Limits: off, Reasons: pr.reasons}
}

func helperMain(args []string) int { return 125 }

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
func (s *Sandbox) start(ctx context.Context, lv Level, pol Policy, argv []string, stdin io.Reader, op string) (*Process, error) {
	if len(pol.Network) > 0 {
		return nil, errors.New("allowing network domains needs a sandbox; the network stays off")
	}
	env := baseEnv(pol, os.TempDir(), os.TempDir())
	if op != "" {
		argv = opArgv(s.exe, op)
		env = append(env, unconfinedEnv+"=1")
	}
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
	p := &Process{Stdout: outR, Stderr: errR, Level: None, cmd: cmd, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	go func() {
		select {
		case <-ctx.Done():
			p.Kill()
		case <-p.done:
		}
	}()
	return p, nil
}

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
