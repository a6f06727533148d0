// Package confine runs commands, and Cairn's own file operations, confined by the
// operating system: what the model asks for runs in a process that can read and write
// only what the policy allows, with the network off unless a list of domains is allowed,
// and with limits on processes, memory, time and file size. No file is opened by the
// main process on the model's behalf: file operations run in a re-executed Cairn (the
// helper) that applies the policy to itself first.
//
// Levels, decided by a live probe (the restrictions are tried, not just looked for):
//   - strong (Linux): bubblewrap (every namespace, no capabilities, only the allowed paths
//     mounted), plus seccomp, Landlock and rlimits applied by the helper inside; a plain
//     command runs without the helper, under the same seccomp filter (loaded by bwrap),
//     the same rlimits (set by Cairn) and read-only mounts where Landlock kept it from
//     writing (see direct);
//   - reduced (Linux without user namespaces or bwrap): Landlock, seccomp and rlimits in
//     the helper, the process tree killed through its process group and cgroup;
//   - none: nothing confines; Start refuses unless the user turned on "run unsandboxed,
//     approve every command" (Options.AllowUnconfined). There is never a silent fallback.
package confine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Level is how strongly a sandboxed process is confined.
type Level string

const (
	Strong  Level = "strong"
	Reduced Level = "reduced"
	None    Level = "none"
)

// ForceEnv, set to "strong", "reduced" or "none", makes New use that level (when the
// machine supports it) instead of the best: tests run the escape suite at each level.
const ForceEnv = "CAIRN_SANDBOX_LEVEL"

// Limits bound what a sandboxed process tree may use. Zero fields take the defaults.
type Limits struct {
	CPUSeconds  uint64 // CPU time of each process
	MemoryBytes uint64 // address space of each process
	FileBytes   uint64 // largest file a process may write
	Processes   uint64 // processes (and threads) of the whole tree
	OpenFiles   uint64 // file descriptors of each process
}

// DefaultLimits are generous for builds and tests and still stop a runaway.
var DefaultLimits = Limits{CPUSeconds: 600, MemoryBytes: 16 << 30, FileBytes: 2 << 30, Processes: 512, OpenFiles: 4096}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	for _, f := range []struct{ v, dv *uint64 }{{&l.CPUSeconds, &d.CPUSeconds}, {&l.MemoryBytes, &d.MemoryBytes},
		{&l.FileBytes, &d.FileBytes}, {&l.Processes, &d.Processes}, {&l.OpenFiles, &d.OpenFiles}} {
		if *f.v == 0 {
			*f.v = *f.dv
		}
	}
	return l
}

// Policy is what one sandboxed run may do.
type Policy struct {
	// Workspace is the one folder the process may write (and read); its working directory.
	Workspace string
	// Dir is the working directory inside the workspace; empty means the workspace.
	Dir string
	// ReadOnly are extra folders or files the process may read.
	ReadOnly []string
	// ReadWrite are further folders the process may write (and read) besides the
	// workspace (an MCP server's second data folder). The protected paths hold in the
	// workspace only.
	ReadWrite []string
	// Protected are paths inside the workspace kept read-only (relative to it);
	// DefaultProtected when nil. Writable lists those the user allowed after all.
	Protected []string
	Writable  []string
	// Network lists the domains the process may reach through Cairn's proxy; nil or
	// empty: no network at all, DNS included.
	Network []string
	Limits  Limits
	// Env is the process's whole environment besides what the sandbox sets (HOME, TMPDIR,
	// PATH when absent). Nothing of Cairn's own environment is passed.
	Env map[string]string
}

// DefaultProtected are the workspace paths a command could use to run code outside the
// sandbox later (a git hook, a shell start-up file, an editor task, an MCP server
// configuration) or to change what git does.
var DefaultProtected = []string{
	".git/hooks", ".git/config", ".gitmodules",
	".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv", ".envrc",
	".vscode", ".idea", ".mcp.json", ".cursor", ".claude",
}

// ErrUnconfined is returned when no sandbox works here and the user has not allowed
// running unconfined.
var ErrUnconfined = errors.New("no sandbox is available on this system, and running unsandboxed is not allowed")

// protected is the policy's protected paths that are not allowed writable, absolute.
func (p Policy) protected() []string {
	list := p.Protected
	if list == nil {
		list = DefaultProtected
	}
	var out []string
	for _, rel := range list {
		if slices.ContainsFunc(p.Writable, func(w string) bool { return filepath.Clean(w) == filepath.Clean(rel) }) {
			continue
		}
		out = append(out, filepath.Join(p.Workspace, filepath.Clean("/"+rel)))
	}
	return out
}

// resolve makes the workspace and the working directory absolute and free of symlinks,
// and checks that the directory is inside the workspace.
func (p Policy) resolve() (Policy, error) {
	if p.Workspace == "" {
		return p, errors.New("the sandbox needs a workspace folder")
	}
	ws, err := filepath.Abs(p.Workspace)
	if err == nil {
		ws, err = filepath.EvalSymlinks(ws)
	}
	if err != nil {
		return p, err
	}
	if st, err := os.Stat(ws); err != nil || !st.IsDir() {
		return p, errors.New("the workspace " + ws + " is not a folder")
	}
	p.Workspace = ws
	dir := p.Dir
	if dir == "" {
		dir = ws
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(ws, dir)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return p, err
	}
	if !within(ws, dir) {
		return p, errors.New("the working directory " + dir + " is outside the workspace")
	}
	p.Dir = dir
	p.Limits = p.Limits.withDefaults()
	return p, nil
}

// within reports whether path is root or beneath it (both clean and absolute).
func within(root, path string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, "/")+"/")
}
