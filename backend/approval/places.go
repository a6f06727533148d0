package approval

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/tools"
)

// resolver is how the call's paths are placed: relative ones where the tool itself reads
// them. A built-in tool starts in the session's workspace; an MCP server's tool in any
// of the server's directories (permission.Resolver.Bases), and in none when Cairn does
// not know the server, so its relative paths stay unresolved.
func (s *Service) resolver(t permission.Tool, workspace string) permission.Resolver {
	r := permission.Resolver{Workspace: workspace, Home: s.home}
	if !tools.IsMCPNamespace(t.Namespace) {
		return r
	}
	places := s.places
	r.Bases = []string{}
	if places == nil {
		return r
	}
	if p, ok := places.ServerPlaces(strings.TrimPrefix(t.Namespace, tools.MCPNamespacePrefix)); ok {
		r.PathHome = p.Home
		r.Bases = serverBases(p, cmp.Or(p.Home, s.home))
	}
	return r
}

// serverBases are the directories an MCP server may read a relative path against: its
// roots (server-filesystem reads relative paths in its first root), and for a local
// process its working directory and every existing directory its arguments name
// (`server-filesystem /a /b`, `--repository=/r`). Several is fine: a deny rule needs one
// of the places to match, an allow rule all of them.
func serverBases(p ServerPlaces, home string) []string {
	out := []string{}
	add := func(d string) {
		if d != "" && filepath.IsAbs(d) {
			if d = filepath.Clean(d); !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	for _, r := range p.Roots {
		add(r)
	}
	if p.Remote {
		return out
	}
	add(p.Dir)
	for _, a := range p.Args {
		for _, c := range argPaths(a) {
			if c = expandArg(c, p.Dir, home); c != "" && isDir(c) {
				add(c)
			}
		}
	}
	return out
}

// argPaths are the paths an argument may hold: itself, and a flag's value (`--dir=/x`).
func argPaths(a string) []string {
	out := []string{a}
	if strings.HasPrefix(a, "-") {
		if _, v, ok := strings.Cut(a, "="); ok {
			out = append(out, v)
		}
	}
	return out
}

// expandArg makes an argument's path absolute as the server would: `~` in the home
// directory, relative ones in its working directory.
func expandArg(a, dir, home string) string {
	switch {
	case a == "" || strings.HasPrefix(a, "-"):
		return ""
	case a == "~" || strings.HasPrefix(a, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, a[1:])
	case filepath.IsAbs(a):
		return a
	case dir != "":
		return filepath.Join(dir, a)
	}
	return ""
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
