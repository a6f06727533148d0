package confine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/cairn-app/cairn/backend/netguard"
)

// Options configure a Sandbox.
type Options struct {
	// Exe is the Cairn binary the helper runs from; os.Executable when empty. Tests pass
	// their own binary, whose TestMain calls Entry.
	Exe string
	// Bwrap is the bubblewrap binary; looked up in PATH when empty.
	Bwrap string
	// Force makes the sandbox use this level (an error when the machine cannot give it);
	// empty: the ForceEnv variable, else the best level the probe found.
	Force Level
	// AllowUnconfined is the user's "run unsandboxed, approve every command": with no
	// working sandbox, Start runs the command unconfined instead of refusing.
	AllowUnconfined bool
	// Hidden are further paths never mounted or readable (besides the data directory and
	// the usual secrets in the home folder).
	Hidden []string
	// ProxyDialer dials for the network proxy (netguard's guard on the system resolver
	// when nil); tests map names to their own servers with it.
	ProxyDialer *netguard.Dialer
}

// Sandbox starts confined processes. It is safe for concurrent use.
type Sandbox struct {
	dataDir string
	opts    Options
	exe     string

	probeOnce sync.Once
	probed    probeResult
	// noDirect sends every strong command through the helper: the probe found that
	// bwrap cannot run one directly (an older bwrap without --chmod).
	noDirect bool
}

// New prepares a sandbox for the Cairn whose data directory is dataDir (never mounted,
// never readable inside). The probe runs on first use.
func New(dataDir string, opts Options) (*Sandbox, error) {
	exe := opts.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find the Cairn binary for the sandbox helper: %w", err)
		}
	}
	if opts.Force == "" {
		opts.Force = Level(os.Getenv(ForceEnv))
	}
	switch opts.Force {
	case "", Strong, Reduced, None:
	default:
		return nil, fmt.Errorf("unknown sandbox level %q (strong, reduced or none)", opts.Force)
	}
	return &Sandbox{dataDir: dataDir, opts: opts, exe: exe}, nil
}

// Aspect is one thing the sandbox holds (or does not), and why.
type Aspect struct {
	Holds  bool   `json:"holds"`
	Detail string `json:"detail"`
}

// Status is what the sandbox gives on this machine: the level and, for each area, what
// holds and why anything is missing.
type Status struct {
	Level     Level  `json:"level"`
	Reads     Aspect `json:"reads"`
	Writes    Aspect `json:"writes"`
	Network   Aspect `json:"network"`
	Processes Aspect `json:"processes"`
	Limits    Aspect `json:"limits"`
	// Reasons says why the level is not stronger (empty at strong with everything on).
	Reasons []string `json:"reasons,omitempty"`
	// Unconfined is set when no sandbox works and the user allowed running without one:
	// every call then says so.
	Unconfined bool `json:"unconfined,omitempty"`
}

// Status reports the level the sandbox runs at, from the cached live probe.
func (s *Sandbox) Status(ctx context.Context) Status {
	pr := s.probe(ctx)
	lv, err := s.level(pr)
	st := describe(pr, lv)
	if err != nil {
		st.Reasons = append(st.Reasons, err.Error())
	}
	st.Unconfined = lv == None && s.opts.AllowUnconfined
	return st
}

func (s *Sandbox) probe(ctx context.Context) probeResult {
	s.probeOnce.Do(func() { s.probed = runProbe(ctx, s) })
	return s.probed
}

// level is the level runs use: the forced one when the machine gives it, else the best.
func (s *Sandbox) level(pr probeResult) (Level, error) {
	best := pr.best()
	switch s.opts.Force {
	case "":
		return best, nil
	case Strong:
		if best != Strong {
			return None, fmt.Errorf("the strong sandbox level was asked for but is not available: %s", strings.Join(pr.reasons, "; "))
		}
	case Reduced:
		if !pr.reducedOK() {
			return None, fmt.Errorf("the reduced sandbox level was asked for but is not available: %s", strings.Join(pr.reasons, "; "))
		}
	}
	return s.opts.Force, nil
}

// Start runs argv confined by pol; stdin (nil: empty) feeds its standard input. The
// process ends when ctx does (its whole tree is killed).
func (s *Sandbox) Start(ctx context.Context, pol Policy, argv []string, stdin io.Reader) (*Process, error) {
	return s.run(ctx, pol, argv, stdin, "")
}

// run starts argv, or with op set Cairn's own helper running that file operation.
func (s *Sandbox) run(ctx context.Context, pol Policy, argv []string, stdin io.Reader, op string) (*Process, error) {
	if len(argv) == 0 && op == "" {
		return nil, fmt.Errorf("no command to run")
	}
	pol, err := pol.resolve()
	if err != nil {
		return nil, fmt.Errorf("sandbox policy: %w", err)
	}
	lv, err := s.level(s.probe(ctx))
	if err != nil {
		return nil, err
	}
	if lv == None && !s.opts.AllowUnconfined {
		return nil, ErrUnconfined
	}
	return s.start(ctx, lv, pol, argv, stdin, op)
}

// OpError is a file operation's failure inside the sandbox: its exit code and what it
// wrote to standard error.
type OpError struct {
	Op     string
	Code   int
	Stderr string
}

func (e *OpError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.Code)
	}
	return fmt.Sprintf("sandboxed %s: %s", e.Op, msg)
}

// RunOp runs Cairn's file operation op (ops.Main) inside the sandbox with req on its
// standard input, and returns what it wrote to standard output.
func (s *Sandbox) RunOp(ctx context.Context, pol Policy, op string, req []byte) ([]byte, error) {
	p, err := s.run(ctx, pol, nil, bytes.NewReader(req), op)
	if err != nil {
		return nil, err
	}
	var out, errb bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(&errb, io.LimitReader(p.Stderr, 64<<10))
		_, _ = io.Copy(io.Discard, p.Stderr)
	}()
	_, _ = io.Copy(&out, p.Stdout)
	wg.Wait()
	code, err := p.Wait()
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return out.Bytes(), &OpError{Op: op, Code: code, Stderr: errb.String()}
	}
	return out.Bytes(), nil
}
