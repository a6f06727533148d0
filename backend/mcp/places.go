package mcp

import (
	"cmp"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// PathContext is what tells where a server's tools read a relative path argument; the
// approval service places such paths in these directories before it matches path rules.
type PathContext struct {
	// Remote: an HTTP server, whose working directory is not known.
	Remote bool
	// Dir is the working directory its process starts in (absolute): the configured one,
	// else Cairn's own, which the child inherits.
	Dir string
	// Roots are the directories offered as MCP roots, as absolute paths.
	Roots []string
	// Args are the command's arguments (a filesystem server's directories are there).
	Args []string
	// Home is the home directory the server's config gives it (HOME, or USERPROFILE on
	// Windows, set in its environment); "" when it has Cairn's.
	Home string
}

// PathContext tells where the server with id serverID reads relative paths; ok is false
// for a server it does not know.
func (m *Manager) PathContext(serverID string) (PathContext, bool) {
	s, err := m.get(serverID)
	if err != nil {
		return PathContext{}, false
	}
	cfg := s.config()
	pc := PathContext{Remote: cfg.Transport != TransportStdio && cfg.Transport != TransportBuiltin}
	for _, r := range cfg.Roots {
		if !cfg.offersRoots() {
			break
		}
		if p := rootPath(r); p != "" {
			pc.Roots = append(pc.Roots, p)
		}
	}
	if pc.Remote {
		return pc, true
	}
	// The process resolves a relative cwd against Cairn's, as filepath.Abs does.
	if abs, err := filepath.Abs(cmp.Or(cfg.Cwd, ".")); err == nil {
		pc.Dir = abs
	}
	if cfg.Transport == TransportStdio {
		pc.Args = slices.Clone(cfg.Args)
		pc.Home = configuredHome(cfg.Env)
	}
	return pc, true
}

// configuredHome is a home directory the server's environment sets in plain text.
func configuredHome(env []Var) string {
	name := "HOME"
	if runtime.GOOS == "windows" {
		name = "USERPROFILE"
	}
	for _, v := range env {
		if strings.EqualFold(v.Name, name) && !v.Secret && filepath.IsAbs(v.Value) {
			return filepath.Clean(v.Value)
		}
	}
	return ""
}

// rootPath is the local path of a root as newClient offers it (fileURI): a file:// URL's
// path, else the path made absolute.
func rootPath(r string) string {
	if strings.HasPrefix(r, "file://") {
		u, err := url.Parse(r)
		if err != nil || (u.Host != "" && u.Host != "localhost") {
			return ""
		}
		p := u.Path
		if len(p) > 1 && p[0] == '/' && filepath.VolumeName(p[1:]) != "" {
			p = p[1:] // file:///C:/x on Windows
		}
		return filepath.FromSlash(p)
	}
	abs, err := filepath.Abs(r)
	if err != nil {
		return ""
	}
	return abs
}
