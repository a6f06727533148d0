package sandbox

import (
	"context"
	"io"

	"github.com/cairn-app/cairn/backend/sandbox/confine"
)

// Level is how strongly the operating system confines what the tools run.
type Level string

// The three levels: every wall up (Linux: namespaces, seccomp, Landlock, limits), some of
// them (no user namespaces: Landlock, seccomp and limits), or none at all.
const (
	LevelStrong  Level = "strong"
	LevelReduced Level = "reduced"
	LevelNone    Level = "none"
)

// Hold is one area of confinement and whether it holds: file reads, file writes,
// network, processes, limits.
type Hold struct {
	Area   string `json:"area"`
	Holds  bool   `json:"holds"`
	Detail string `json:"detail,omitempty"`
}

// Status is what the sandbox can do on this machine, as the live probe found it.
type Status struct {
	Level Level  `json:"level"`
	Holds []Hold `json:"holds"`
	// Reasons say why anything is missing (English, from the probe).
	Reasons []string `json:"reasons,omitempty"`
}

// Place is where and how one call runs: its workspace, the paths in it that stay
// read-only, the working directory (relative to the workspace) and whether the user let
// it run without a sandbox.
type Place struct {
	Workspace  string
	Protected  []string
	Dir        string
	Unconfined bool
}

// Engine is the confinement the tools run under (confine.Sandbox through an adapter, or
// Local). RunOp runs one ops operation inside the sandbox; Start starts a command there.
type Engine interface {
	Status(ctx context.Context) Status
	RunOp(ctx context.Context, p Place, op string, req []byte) ([]byte, error)
	Start(ctx context.Context, p Place, argv []string, stdin io.Reader) (Process, error)
}

// Process is a command started in the sandbox. Wait returns its exit code once both
// streams are read to their end; Kill ends its whole process tree.
type Process interface {
	Stdout() io.Reader
	Stderr() io.Reader
	Wait() (int, error)
	Kill() error
	Level() Level
}

// DefaultProtected are the paths inside a workspace that stay read-only unless the user
// allows them (confine.DefaultProtected, which the sandbox mounts read-only): what runs on
// its own later and so would let a command outlive the sandbox.
func DefaultProtected() []string { return append([]string(nil), confine.DefaultProtected...) }
