//go:build linux

package confine

import (
	"os"
	"path/filepath"
)

// insideExe is where the Cairn binary is mounted in a strong sandbox.
const insideExe = "/run/cairn/cairn"

// bwrapArgs lays out a strong sandbox: a new root with only the system folders (read
// only, /etc without its secrets), a private /dev, /proc, /tmp and home, the workspace
// read-write with its protected paths read-only, the extra read-only paths, and Cairn's
// binary for the helper. Every path is its own argument, so no name can inject an option
// (bwrap takes none after the command starts, and every source and target is absolute).
func bwrapArgs(l layout) []string {
	a := []string{
		"--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL",
		"--hostname", "sandbox",
	}
	for _, d := range systemDirs {
		if target, err := os.Readlink(d); err == nil {
			a = append(a, "--symlink", target, d)
		} else if st, err := os.Stat(d); err == nil && st.IsDir() {
			a = append(a, "--ro-bind", d, d)
		}
	}
	a = append(a, "--ro-bind", "/etc", "/etc")
	for _, h := range hiddenEtc {
		a = appendMask(a, h)
	}
	a = append(a, "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--dir", l.home, "--tmpfs", l.home)
	for _, p := range l.readOnly {
		a = append(a, "--ro-bind", p, p)
	}
	for _, p := range l.readWrite {
		a = append(a, "--bind", p, p)
	}
	a = append(a, "--bind", l.pol.Workspace, l.pol.Workspace)
	for _, p := range l.protected {
		a = append(a, "--ro-bind", p, p)
	}
	for _, p := range l.placeholders {
		if p.dir {
			a = append(a, "--tmpfs", p.path, "--remount-ro", p.path)
		} else {
			a = append(a, "--ro-bind", "/dev/null", p.path)
		}
	}
	if l.exe != "" { // the helper's binary (a direct run has none)
		a = append(a, "--ro-bind", l.exe, insideExe)
	}
	a = append(a, "--chdir", l.pol.Dir)
	if l.proxySock != "" {
		a = append(a, "--bind", l.proxySock, insideProxy)
	}
	return a
}

// appendMask hides p (when it exists): an empty read-only folder over a folder, the
// empty /dev/null over a file.
func appendMask(a []string, p string) []string {
	st, err := os.Lstat(p)
	switch {
	case err != nil:
		return a
	case st.IsDir():
		return append(a, "--tmpfs", p, "--remount-ro", p)
	default:
		return append(a, "--ro-bind", "/dev/null", p)
	}
}

// layout is one run's paths.
type layout struct {
	pol       Policy
	exe       string   // the Cairn binary outside
	home      string   // $HOME inside
	tmp       string   // $TMPDIR inside
	readOnly  []string // the policy's extra read-only paths, resolved
	readWrite []string // the policy's further writable folders, resolved
	// protected are the policy's protected paths that exist (none is a symbolic link:
	// existingProtected refuses those, as a mount would follow it).
	protected    []string
	placeholders []placeholder // strong: protected paths mounted empty and read-only
	scratch      string        // reduced: the private folder holding home and tmp (removed after)
	// proxySock is the network proxy's socket in proxyDir (a domain list is allowed).
	proxyDir, proxySock string
}

// strongHome is the home folder inside a strong sandbox: the user's own path (programs
// expect it), empty and private.
func strongHome() string {
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) && h != "/" {
		return evalOr(h)
	}
	return "/home/sandbox"
}
