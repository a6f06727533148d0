package proc

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Launcher starts a server's process some other way than a plain exec: inside the
// operating system's sandbox. Start hands it the command as it would run it (the
// tracking marker already in Env) and the read end of the stdin pipe, which the
// launched process must use as its standard input; Start closes its own copy after.
type Launcher interface {
	Launch(l Launch) (Child, error)
}

// Launch is the command a Launcher starts.
type Launch struct {
	Path  string
	Args  []string
	Env   []string
	Dir   string
	Stdin *os.File
}

// Child is a process a Launcher started: the leader of a process group of its own (a
// session), which Stop signals like any server's group.
type Child interface {
	Pid() int
	Stdout() io.ReadCloser
	Stderr() io.Reader
	// Wait returns the exit code once the process ended (128+signal when killed).
	Wait() (int, error)
	// Kill ends the whole tree at once, descendants that left the group included.
	Kill()
}

// startLaunched starts spec through its Launcher and wires the child's pipes as Start's
// own: stdin a pipe Cairn writes, stderr copied to spec.Stderr.
func startLaunched(spec Spec, t tracked) (*Process, error) {
	env := spec.Env
	if t.marker != "" {
		env = append(append([]string(nil), spec.Env...), MarkerEnv+"="+t.marker)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c, err := spec.Launch.Launch(Launch{Path: spec.Path, Args: spec.Args, Env: env, Dir: spec.Dir, Stdin: inR})
	inR.Close()
	if err != nil {
		inW.Close()
		return nil, err
	}
	p := &Process{child: c, stdin: inW, stdout: c.Stdout(), pgid: c.Pid(), reg: spec.Registry, track: t, done: make(chan struct{})}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		w := spec.Stderr
		if w == nil {
			w = io.Discard
		}
		_, _ = io.Copy(w, c.Stderr())
	}()
	go func() {
		code, err := c.Wait()
		// As exec's WaitDelay: a grandchild holding stderr open does not hold Done.
		select {
		case <-copied:
		case <-time.After(2 * time.Second):
		}
		p.code, p.waitErr = code, err
		if err == nil && code != 0 {
			p.waitErr = fmt.Errorf("%s", describeCode(code))
		}
		_ = p.stdout.Close()
		close(p.done)
	}()
	return p, nil
}

// describeCode says how a launched child ended from its exit code.
func describeCode(code int) string {
	if code > 128 && code < 128+65 {
		return fmt.Sprintf("killed by signal %d", code-128)
	}
	return fmt.Sprintf("exited with code %d", code)
}
