package sandbox

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/cairn-app/cairn/backend/sandbox/ops"
)

// Local runs the tools without an operating system sandbox: the ops in this process
// (still opened beneath the workspace), commands as plain child processes in their own
// process group. Its level is none, so the tools refuse it unless the user turned on
// "run unsandboxed, approve every command"; tests use it to run the real ops in-process.
type Local struct{}

// Status says nothing confines a Local run.
func (Local) Status(context.Context) Status {
	return Status{Level: LevelNone, Holds: []Hold{
		{Area: "reads"}, {Area: "writes"}, {Area: "network"}, {Area: "processes"}, {Area: "limits"},
	}, Reasons: []string{"no operating system sandbox is in use"}}
}

// RunOp runs the op in this process.
func (Local) RunOp(_ context.Context, _ Place, op string, req []byte) ([]byte, error) {
	var out bytes.Buffer
	ops.Main(op, bytes.NewReader(req), &out)
	return out.Bytes(), nil
}

// Start runs argv in the place's directory, in a process group of its own.
func (Local) Start(ctx context.Context, p Place, argv []string, stdin io.Reader) (Process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = filepath.Join(p.Workspace, p.Dir)
	cmd.Stdin = stdin
	setGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &localProc{cmd: cmd, stdout: stdout, stderr: stderr}, nil
}

type localProc struct {
	cmd            *exec.Cmd
	stdout, stderr io.Reader
	once           sync.Once
}

func (p *localProc) Stdout() io.Reader { return p.stdout }
func (p *localProc) Stderr() io.Reader { return p.stderr }
func (p *localProc) Level() Level      { return LevelNone }
func (p *localProc) Kill() error       { return killGroup(p.cmd) }

func (p *localProc) Wait() (int, error) {
	err := p.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return -1, err
	}
	return 0, nil
}
